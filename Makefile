# sup — see README.md. `make test` is what CI runs (.ci/run).
GO      ?= go
PREFIX  ?= $(HOME)/.local
BINDIR  ?= $(PREFIX)/bin
# Fuzz each target briefly in CI; raise locally: make fuzz FUZZTIME=5m
FUZZTIME ?= 20s

.PHONY: all build install run test unit fuzz lint bench bench-smoke bench-pump agents clean

all: build

build:
	$(GO) build -o bin/sup ./cmd/sup

install:
	mkdir -p $(BINDIR)
	$(GO) build -o $(BINDIR)/sup ./cmd/sup
	@echo "installed $(BINDIR)/sup"

# Build, then supervise a shell for examples/welcome.md in this terminal.
run: build
	./bin/sup start examples/welcome.md

# Every test: unit, testscript, end-to-end (real ptys, real tmux on private
# sockets, a Node.js protocol client), then each fuzz target briefly.
test: lint unit fuzz bench-smoke

unit:
	$(GO) test -race -count=1 -timeout 12m ./...

fuzz:
	$(GO) test -run='^$$' -fuzz='^FuzzReadFrame$$' -fuzztime=$(FUZZTIME) ./ipc/
	$(GO) test -run='^$$' -fuzz='^FuzzDecodeRequest$$' -fuzztime=$(FUZZTIME) ./ipc/

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# The benchmark report (specs/performance.md): every figure beside its
# baseline and goal, printed and written to bench/results.json. About 2-4
# minutes; real Claude Code rounds need `make agents`.
bench:
	SUP_BENCH=full $(GO) test -count=1 -timeout 20m -run='^TestBench$$' -v ./internal/bench/

# The same harness at tiny sizes: proves it works (CI), figures meaningless.
bench-smoke:
	$(GO) test -count=1 -timeout 5m -run='^TestBench$$' ./internal/bench/

# Bytes/s through sup's output pump vs a bare pty copy, same run: rounds
# of three floods, median of the per-round ratios.
bench-pump:
	$(GO) test -run='^$$' -bench=Pump -benchtime=15x ./supervisor/

# The real agent CLIs the real-agent tests drive, pinned in
# .agents/package.json, into .agents/node_modules (git-ignored). Skipped when
# the pinned versions are already there. --ignore-scripts: the tests run the
# native binaries inside the per-platform packages (internal/agenttest
# AgentBin), so claude's postinstall, which only copies that binary over a
# stub and wants a newer node than Debian ships, is not needed.
AGENTS_PINNED = const p = require("./.agents/package.json"); for (const [n, v] of Object.entries(p.dependencies)) if (require("./.agents/node_modules/" + n + "/package.json").version !== v) process.exit(1)
agents:
	@if node -e '$(AGENTS_PINNED)' 2>/dev/null; \
	then echo "agents: pinned versions already installed in .agents/"; \
	else npm install --prefix .agents --no-audit --no-fund --ignore-scripts; fi

clean:
	rm -rf bin
