//go:build linux

package testutil

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// Bins holds the paths of the binaries that end-to-end tests run.
type Bins struct {
	Sup       string // built from ./cmd/sup: race-built after RaceBuilds
	FakeAgent string // built from ./testdata/fakeagent, always plain (FakeAgent)
	// SupCLI is the sup for the client verbs a test runs (Rig.Sup, `sup
	// hook`): Sup, or a plain build after [PlainClients].
	SupCLI string
}

// Build builds sup and fakeagent, once per test process, and returns their
// paths. See [BuildPackage].
func Build(t testing.TB) Bins {
	t.Helper()
	b := Bins{
		Sup:       BuildPackage(t, "./cmd/sup"),
		FakeAgent: FakeAgent(t),
	}
	b.SupCLI = b.Sup
	if plainClients.Load() {
		b.SupCLI = BuildPlain(t, "./cmd/sup")
	}
	return b
}

// plainClients is whether Build's SupCLI is a plain build; see
// PlainClients.
var plainClients atomic.Bool

// PlainClients makes the SupCLI of the binaries this test process builds
// from then on a plain build, whatever [RaceBuilds] said: call it from
// the TestMain of a package whose end-to-end tests are about the
// supervisor's process. Its race-built supervisors stay; the client verbs
// its tests run (`sup state`, `queue`, `hook`, ...) were 805 race-built
// processes and 123 CPU-s of one run (issue 29), and their code, the
// broker's fan-out goroutines included, runs race-built in the broker
// package's tests, which keep race-built clients.
func PlainClients() { plainClients.Store(true) }

// binDirPrefix names the per-process directories binaries are built into;
// the pid that follows it lets a later run remove directories whose process
// is gone.
const binDirPrefix = "sup-testbin-"

var (
	buildMu  sync.Mutex
	builds   = map[string]*build{}
	binDir   string
	binErr   error
	binOnce  sync.Once
	rootOnce sync.Once
	root     string
	rootErr  error
)

// build is one package's build; the first caller does it, later callers
// get the same result, failure included.
type build struct {
	once sync.Once
	path string
	err  error
}

// BuildPackage builds the main package pkg, a path relative to the module
// root such as "./testdata/fakeagent", and returns the binary's path. Each
// package is built once per test process, into a directory under
// os.TempDir that [RemoveBuilds] deletes. The built binary has the race
// detector when the test process called [RaceBuilds] (and has it itself).
//
// The link is shared between test processes: go build writes into a cache
// directory per checkout (see [sharedBuild]) and the binary is copied from
// there, so the dozen test packages of a `go test ./...` link sup once, not
// a dozen times (2.3 s of CPU each).
func BuildPackage(t testing.TB, pkg string) string {
	t.Helper()
	return buildPackage(t, pkg, raceBuilds.Load())
}

// FakeAgent builds testdata/fakeagent, once per test process, always
// without the race detector: it is the tests' stand-in, not what they
// test, and a race-built one cost ~0.1 s of CPU more at each of the
// ~250 starts of a run (issue 29).
func FakeAgent(t testing.TB) string {
	t.Helper()
	return BuildPlain(t, "./testdata/fakeagent")
}

// BuildPlain is [BuildPackage] without the race detector whatever
// [RaceBuilds] said (see [PlainClients]). A race-built sup client costs
// ~150 ms of CPU against ~40 ms.
func BuildPlain(t testing.TB, pkg string) string {
	t.Helper()
	return buildPackage(t, pkg, false)
}

func buildPackage(t testing.TB, pkg string, race bool) string {
	t.Helper()
	buildMu.Lock()
	key := fmt.Sprintf("%s race=%v", pkg, race)
	b := builds[key]
	if b == nil {
		b = &build{}
		builds[key] = b
	}
	buildMu.Unlock()
	b.once.Do(func() { b.path, b.err = goBuild(pkg, race) })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

func goBuild(pkg string, race bool) (string, error) {
	modRoot, err := moduleRoot()
	if err != nil {
		return "", err
	}
	dir, err := buildDir()
	if err != nil {
		return "", err
	}
	if race {
		// A directory of its own, so that a test process may build a
		// package both ways and each binary keeps its name: sup knows its
		// own processes by it (internal/caller).
		dir = filepath.Join(dir, "race")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
	}
	out := filepath.Join(dir, filepath.Base(pkg))
	if pre := prebuilt(pkg, race); pre != "" {
		return out, copyBinary(pre, out)
	}
	shared, unlock, err := sharedBuild(modRoot, race)
	if err != nil {
		// No cache directory (no HOME, a read-only one): build here.
		return out, runGoBuild(modRoot, out, pkg, race)
	}
	defer unlock()
	cached := filepath.Join(shared, filepath.Base(pkg))
	if err := runGoBuild(modRoot, cached, pkg, race); err != nil {
		return "", err
	}
	return out, copyBinary(cached, out)
}

// copyBinary copies the executable src to dst: a copy, not src itself,
// since a later build may rewrite src while this process's tests still
// run the binary.
func copyBinary(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o755)
}

// PrebuiltEnv names the directory of the binaries `make test` builds once
// for the whole run (make test-bins): plain/sup, plain/fakeagent and
// race/sup. A test process takes them from there instead of running `go
// build` itself, which, up to date, still costs the go command's look at
// every source file and git's for the build's VCS stamp: some 60 go and
// 100 git processes a run, ~25 CPU-seconds (issue 29). Without it (a bare
// `go test`) each test process builds as before.
const PrebuiltEnv = "SUP_TEST_BINDIR"

// prebuiltPkgs are the packages make test-bins builds, by the name of
// their binary. test-bins builds them as runGoBuild would (CGO_ENABLED=0
// for plain, -race): a flag added to one goes to the other. A directory
// is trusted as it is: only make sets PrebuiltEnv, right after building.
var prebuiltPkgs = map[string]string{"./cmd/sup": "sup", "./testdata/fakeagent": "fakeagent"}

// prebuilt is the path of pkg's binary in PrebuiltEnv's directory, or ""
// when it is not there.
func prebuilt(pkg string, race bool) string {
	dir, name := os.Getenv(PrebuiltEnv), prebuiltPkgs[pkg]
	if dir == "" || name == "" {
		return ""
	}
	flavour := "plain"
	if race {
		flavour = "race"
	}
	p := filepath.Join(dir, flavour, name)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// runGoBuild builds pkg into out (the Makefile's test-bins builds as it
// does: keep the two alike). go build leaves out alone when it is
// already the binary the sources and flags make (its build ID says so), so
// building into a cached path costs a link only when something changed.
func runGoBuild(modRoot, out, pkg string, race bool) error {
	args := []string{"build", "-o", out}
	if race {
		args = append(args, "-race")
	}
	args = append(args, pkg)
	cmd := exec.Command("go", args...)
	cmd.Dir = modRoot
	if !race {
		// Static, as `make build` and `make install` build sup: what users
		// run, and a process started without the dynamic loader's ~5 ms of
		// CPU (the tests start some 1,500 sup processes a run). The race
		// detector needs cgo.
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, buf.Bytes())
	}
	return nil
}

// sharedBuild returns the cache directory for this checkout's race or
// plain builds, locked (flock) until unlock is called: one process builds
// and copies at a time. It lives in the user's cache directory
// (~/.cache/sup-test/<checkout>-<hash>/), as go's own build cache does,
// one per checkout so that two worktrees never rebuild each other's.
func sharedBuild(modRoot string, race bool) (dir string, unlock func(), err error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", nil, err
	}
	flavour := "plain"
	if race {
		flavour = "race"
	}
	h := fnv.New32a()
	h.Write([]byte(modRoot)) // Never fails.
	dir = filepath.Join(base, "sup-test", fmt.Sprintf("%s-%08x", filepath.Base(modRoot), h.Sum32()), flavour)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return "", nil, err
	}
	return dir, func() { f.Close() }, nil // Closing releases the lock.
}

// ModuleRoot returns the directory holding sup's go.mod.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func moduleRoot() (string, error) {
	rootOnce.Do(func() {
		// Ask go itself: tests run in their package's directory, which
		// may be any depth below the root.
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			rootErr = fmt.Errorf("go env GOMOD: %v", err)
			return
		}
		gomod := strings.TrimSpace(string(out))
		if gomod == "" || gomod == os.DevNull {
			rootErr = fmt.Errorf("go env GOMOD: not inside a module")
			return
		}
		root = filepath.Dir(gomod)
	})
	return root, rootErr
}

func buildDir() (string, error) {
	binOnce.Do(func() {
		removeStaleBuildDirs()
		binDir, binErr = os.MkdirTemp("", fmt.Sprintf("%s%d-", binDirPrefix, os.Getpid()))
	})
	return binDir, binErr
}

// RemoveBuilds deletes the binaries built by this process. Call it from
// TestMain after m.Run; test processes that do not are cleaned up by the
// next one that builds, which removes directories of processes that have
// exited.
func RemoveBuilds() {
	buildMu.Lock()
	defer buildMu.Unlock()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
}

// removeStaleBuildDirs deletes the build directories of test processes
// that no longer run (zombies included: a container's init may not reap
// them). A directory whose pid is alive is kept, even if the pid was
// reused, since deleting a binary in use is worse than a leak.
func removeStaleBuildDirs() {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), binDirPrefix+"*"))
	for _, m := range matches {
		rest := strings.TrimPrefix(filepath.Base(m), binDirPrefix)
		pidStr, _, ok := strings.Cut(rest, "-")
		if !ok {
			continue
		}
		pid, err := strconv.Atoi(pidStr)
		if err != nil || pid <= 0 {
			continue
		}
		if !ProcessAlive(pid) {
			_ = os.RemoveAll(m)
		}
	}
}

// raceBuilds is whether BuildPackage builds with -race; see RaceBuilds.
var raceBuilds atomic.Bool

// RaceBuilds makes the binaries this test process builds from then on
// race-built, when the test binary is: call it from TestMain before m.Run.
// Only the packages whose end-to-end tests are where sup's races show
// (supervisor, broker) ask for it; elsewhere the sup and fakeagent a test
// runs are plain builds. A race-built sup costs ~95 ms of CPU to start
// against ~30 ms, and its work several times a plain one's; the suite
// starts thousands (specs/testing.md, "The suite's time").
func RaceBuilds() { raceBuilds.Store(raceEnabled) }

// MainRaceBuilds is the TestMain of a package whose end-to-end tests ask
// for race-built binaries (RaceBuilds): it runs the tests, removes the
// builds and returns the exit code for os.Exit.
func MainRaceBuilds(m *testing.M) int {
	RaceBuilds()
	code := m.Run()
	RemoveBuilds()
	return code
}

// Race reports whether the binaries this test process builds have the
// race detector: a bound on their memory must allow for its shadow
// memory, several times a plain build's.
func Race() bool { return raceBuilds.Load() }

// RaceDetector reports whether this test binary was built with -race: an
// in-process load sized for the detector's cost (ipc's TestLoad).
func RaceDetector() bool { return raceEnabled }

// CopyExecutable copies the running test binary to path (its directory
// made if need be), executable: a second binary that is this one, for a
// test that needs a program at a given path or one it can delete.
func CopyExecutable(t testing.TB, path string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
}
