//go:build linux

package testutil

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Bins holds the paths of the binaries that end-to-end tests run.
type Bins struct {
	Sup       string // built from ./cmd/sup
	FakeAgent string // built from ./testdata/fakeagent
}

// Build builds sup and fakeagent, once per test process, and returns their
// paths. See [BuildPackage].
func Build(t testing.TB) Bins {
	t.Helper()
	return Bins{
		Sup:       BuildPackage(t, "./cmd/sup"),
		FakeAgent: BuildPackage(t, "./testdata/fakeagent"),
	}
}

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
// os.TempDir that [RemoveBuilds] deletes. When the test binary has the race
// detector, so does the built one.
func BuildPackage(t testing.TB, pkg string) string {
	t.Helper()
	buildMu.Lock()
	b := builds[pkg]
	if b == nil {
		b = &build{}
		builds[pkg] = b
	}
	buildMu.Unlock()
	b.once.Do(func() { b.path, b.err = goBuild(pkg) })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

func goBuild(pkg string) (string, error) {
	modRoot, err := moduleRoot()
	if err != nil {
		return "", err
	}
	dir, err := buildDir()
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, filepath.Base(pkg))
	args := []string{"build", "-o", out}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, pkg)
	cmd := exec.Command("go", args...)
	cmd.Dir = modRoot
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, buf.Bytes())
	}
	return out, nil
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

// Race reports whether the binaries under test are built with -race (the
// test binary is): a bound on their memory must allow for the race
// detector's shadow memory, several times a plain build's.
func Race() bool { return raceEnabled }

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
