# sup — see README.md. `make test` is what CI runs (.ci/run).
GO      ?= go
PREFIX  ?= $(HOME)/.local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man/man1
# Fuzz each target briefly in CI; raise locally: make fuzz FUZZTIME=5m.
# A crash found writes its input under the package's testdata/fuzz/: commit
# it with the fix, so the corpus keeps every crash ever found.
# CI's budgets are counts (N×), each about 2.5 s of fuzzing on a 2-core
# machine (plus its instrumented build; halved from 5 s for issue 29:
# the 14 targets were ~120 of the suite's ~1,200 CPU-seconds, and every
# seed and every crasher ever found still runs as a plain test in
# unit-race), not durations: at a duration's
# deadline Go's fuzz coordinator can report a busy worker's cancellation
# as a failure, "context deadline exceeded" with no crasher
# (golang/go#75804, fixed in Go 1.27; seen in our CI).
FUZZTIME ?=
# -fuzzminimizetime: Go minimizes each new interesting input for up to 60 s
# by default, with no progress shown ("0/sec"); it took FuzzTokenize to
# 128 s of a 5-s budget. A count, as for -fuzztime (above), keeps it short,
# and a small one: minimising a large input runs it whole each time, and
# at 2000x FuzzDetect sat 200 s at "0/sec" on one (a whole run of issue
# 29). A crasher is still written, less minimised; raise it locally.
FUZZMINIMIZE ?= 100x
fuzzrun = $(GO) test -run='^$$' -fuzz='^$(1)$$' -fuzztime=$(or $(FUZZTIME),$(3)) -fuzzminimizetime=$(FUZZMINIMIZE) $(2)

.PHONY: all build install demo run test test-bins unit unit-race unit-agents agents-then-fuzz fuzz lint bench bench-smoke bench-pump bench-broker bench-trigger agents agents-latest clean

all: build

# CGO_ENABLED=0: a static binary. cgo only came in through net and os/user
# (both have pure-Go versions), and linking libc cost every sup process the
# dynamic loader's start (~5 ms of CPU) and 1.4 MB of RSS (specs/performance.md).
build:
	CGO_ENABLED=0 $(GO) build -o bin/sup ./cmd/sup

# A fresh Debian's ~/.local/bin is not on PATH until a login shell finds
# it exists: say so, with the exact line to add, or every `sup ...` the
# README shows fails with "sup: not found" (sup doctor checks it too).
install:
	mkdir -p $(BINDIR)
	CGO_ENABLED=0 $(GO) build -o $(BINDIR)/sup ./cmd/sup
	mkdir -p $(MANDIR)
	$(BINDIR)/sup man > $(MANDIR)/sup.1
	@echo "installed $(BINDIR)/sup and its manual page $(MANDIR)/sup.1 (man sup)"
	@case ":$$PATH:" in *":$(BINDIR):"*|*":$(BINDIR)/:"*) ;; *) \
		echo "note: $(BINDIR) is not on your PATH, so a shell will not find sup; add it with:"; \
		echo "  echo 'export PATH=\"$(BINDIR):\$$PATH\"' >> ~/.profile && export PATH=\"$(BINDIR):\$$PATH\""; \
		echo "  (until then, run it as $(BINDIR)/sup)";; esac

# Install, then open the demo: three supervised demo agents in a private
# tmux server with the queue's keys. The one thing it needs beyond Go is
# tmux: on Debian it is installed here (sudo when not root), so `make demo`
# is the whole set-up on a fresh machine.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
demo: install
	@command -v tmux >/dev/null 2>&1 || { echo "installing tmux"; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux; }
	$(BINDIR)/sup demo

# Build, then supervise a shell for examples/welcome.md in this terminal.
run: build
	./bin/sup start examples/welcome.md

# Every test: unit, testscript, end-to-end (real ptys, real tmux on private
# sockets, a Node.js protocol client), and each fuzz target briefly.
# The benchmark harness at smoke sizes (bench-smoke's TestBench) runs in
# unit, under -race: running it again here cost a minute for nothing.
test: lint
	@$(MAKE) --no-print-directory -j2 --output-sync=target unit-race agents-then-fuzz

# Two runs side by side (make -j2, each one's output printed whole when
# it ends): every package but the real-agent tests under -race, and the
# real-agent tests without it. Their time goes to the agents (bun, node)
# and to waiting on them; under -race the sup binary they drive is built
# with it too, which cost ~90 s of a 15-minute budget on 2 cores, while
# sup's races are what the supervisor, broker and cmd/sup end-to-end tests
# catch with fakeagent (specs/testing.md, "The suite's time"). GORACE:
# a race-built process sleeps 1 s at exit by default (atexit_sleep_ms),
# and every test binary and the supervisor's and broker's sups are one
# (testutil sets it too, for a bare `go test -race`).
AGENTTEST = ./internal/testing/agenttest
unit:
	@$(MAKE) --no-print-directory -j2 --output-sync=target unit-race unit-agents

# make test's second leg: the fuzz targets run once the real-agent tests
# are done, beside the race leg's last packages, not after them: the race
# leg is the longer, and at its end the machine was 30-60 % idle (a
# package's last parallel tests waiting on their children), which the
# fuzzers' 2 workers fill (issue 29). Their budgets are counts, so load
# does not change what they try.
agents-then-fuzz: unit-agents
	@$(MAKE) --no-print-directory fuzz

# The two longest packages first, then go list's order: go test starts
# packages in the order given, and the supervisor's, started late, ran
# alone at the end with a core idle. (Tried before and not kept then:
# TestE2EStalled, one of its serial tests, read a 1 s window by polling
# race-built processes and failed at the suite's busiest; it reads
# published events now, specs/testing.md.) Not kept:
# -parallel 4 (no faster on 2 cores; three timing-window tests failed
# under its load).
unit-race: test-bins
	SUP_TEST_BINDIR=$(TESTBIN) GORACE="atexit_sleep_ms=0 $$GORACE" $(GO) test -race -count=1 -timeout 20m $$($(GO) list ./supervisor ./broker ./... | grep -v '/internal/testing/agenttest$$')

unit-agents: test-bins
	SUP_TEST_BINDIR=$(TESTBIN) $(GO) test -count=1 -timeout 20m $(AGENTTEST)

# The sup and fakeagent binaries every end-to-end test runs, built once
# for the whole run: a test process copies them from $SUP_TEST_BINDIR
# instead of running `go build` itself (testutil.PrebuiltEnv; a bare `go
# test` still builds its own). go build relinks only what changed.
# Built as testutil's runGoBuild builds: keep the flags alike.
TESTBIN = $(CURDIR)/.testbin
test-bins:
	CGO_ENABLED=0 $(GO) build -o $(TESTBIN)/plain/sup ./cmd/sup
	CGO_ENABLED=0 $(GO) build -o $(TESTBIN)/plain/fakeagent ./testdata/fakeagent
	$(GO) build -race -o $(TESTBIN)/race/sup ./cmd/sup

fuzz:
	$(call fuzzrun,FuzzReadFrame,./ipc/,75000x)
	$(call fuzzrun,FuzzDecodeRequest,./ipc/,75000x)
	$(call fuzzrun,FuzzSanitize,./supervisor/trigger/,125000x)
	$(call fuzzrun,FuzzFrontmatter,./internal/plan/,37500x)
	$(call fuzzrun,FuzzClassify,./supervisor/,2000x)
	$(call fuzzrun,FuzzWrite,./supervisor/screen/,375x)
	$(call fuzzrun,FuzzResync,./supervisor/screen/,10000x)
	$(call fuzzrun,FuzzTokenize,./supervisor/paneinput/,50000x)
	$(call fuzzrun,FuzzRespond,./supervisor/termreply/,37500x)
	$(call fuzzrun,FuzzField,./internal/safetext/,12500x)
	$(call fuzzrun,FuzzDetect,./supervisor/question/,7500x)
	$(call fuzzrun,FuzzParseReply,./supervisor/modelread/,12500x)
	$(call fuzzrun,FuzzRedact,./supervisor/modelread/,3000x)
	$(call fuzzrun,FuzzParseStat,./internal/caller/,12500x)

# lint also vets for darwin and freebsd: sup is Linux-only
# (specs/supervisor.md, "Platforms"), elsewhere the Linux-only packages are
# excluded and cmd/sup says so; this keeps the claim true and every
# portable package portable.
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	GOOS=darwin $(GO) vet ./...
	GOOS=freebsd $(GO) vet ./...
	GOOS=darwin $(GO) build ./ipc ./internal/plan ./internal/store ./internal/paths ./internal/atomicfile ./internal/config
	GOOS=freebsd $(GO) build ./ipc ./internal/plan ./internal/store ./internal/paths ./internal/atomicfile ./internal/config

# The benchmark report (specs/performance.md): every figure beside its
# baseline and goal, printed and written to bench/results.json. About 2-4
# minutes; real Claude Code rounds need `make agents`.
bench:
	SUP_BENCH=full CGO_ENABLED=0 $(GO) test -count=1 -timeout 20m -run='^TestBench$$' -v ./internal/testing/bench/

# The same harness at tiny sizes: proves it works (CI), figures meaningless.
bench-smoke:
	$(GO) test -count=1 -timeout 5m -run='^TestBench$$' ./internal/testing/bench/

# Bytes/s through sup's output pump vs a bare pty copy, same run: rounds
# of three floods, median of the per-round ratios.
bench-pump:
	$(GO) test -run='^$$' -bench=Pump -benchtime=15x ./supervisor/

# The broker's fan-out: Discover and the queue over 200 live sockets.
bench-broker:
	$(GO) test -run='^$$' -bench='Discover200|StatusLine200' -benchtime=50x ./broker/

# Request → first byte at the agent: socket trigger vs tmux send-keys, p50/p95.
bench-trigger:
	$(GO) test -run='^$$' -bench=TriggerLatency -benchtime=1000x ./supervisor/

# The real agent CLIs the real-agent tests drive, pinned in
# .agents/package.json (claude, codex, gemini), into .agents/node_modules
# (git-ignored). Skipped when every pinned version is already there. --ignore-scripts: the tests run the
# native binaries inside the per-platform packages (internal/testing/agenttest
# AgentBin), so claude's postinstall, which only copies that binary over a
# stub and wants a newer node than Debian ships, is not needed.
AGENTS_PINNED = const p = require("./.agents/package.json"); for (const [n, v] of Object.entries(p.dependencies)) if (require("./.agents/node_modules/" + n + "/package.json").version !== v) process.exit(1)
agents:
	@if node -e '$(AGENTS_PINNED)' 2>/dev/null; \
	then echo "agents: pinned versions already installed in .agents/"; \
	else npm install --prefix .agents --no-audit --no-fund --ignore-scripts; fi

# The newest published claude, codex and gemini, into .agents-latest/
# (git-ignored), for `SUP_AGENTS=latest go test ./internal/testing/agenttest`: the
# first thing to run when an agent releases (specs/testing.md, "Version
# drift"). Not part of `make test`: the pin keeps CI reproducible.
AGENTS_NPM = @anthropic-ai/claude-code @openai/codex @google/gemini-cli
agents-latest:
	mkdir -p .agents-latest
	printf '{"name":"sup-real-agents-latest","private":true}\n' >.agents-latest/package.json
	npm install --prefix .agents-latest --no-audit --no-fund --ignore-scripts $(AGENTS_NPM:%=%@latest)
	@node -e 'for (const n of process.argv.slice(1)) console.log(n, require("./.agents-latest/node_modules/" + n + "/package.json").version)' $(AGENTS_NPM)

clean:
	rm -rf bin .testbin
