//go:build linux

package conformance

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testutil.RemoveBuilds()
	os.Exit(code)
}

func loadSuite(t *testing.T) (*Suite, string) {
	t.Helper()
	path := filepath.Join(testutil.ModuleRoot(t), DefaultPath)
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s, path
}

// TestGoClient: ipc.Client passes every case.
func TestGoClient(t *testing.T) {
	s, _ := loadSuite(t)
	for _, err := range Run(context.Background(), s, StartSupervisors(t)) {
		t.Error(err)
	}
}

// TestBrokenCaseFails: a case expecting the wrong error code makes the
// suite fail, naming the case and both codes — the runner cannot pass a
// client by matching nothing.
func TestBrokenCaseFails(t *testing.T) {
	s, _ := loadSuite(t)
	var broken *Case
	for i := range s.Cases {
		if s.Cases[i].Name == "unknown method" {
			broken = &s.Cases[i]
		}
	}
	if broken == nil {
		t.Fatal(`the suite has no "unknown method" case`)
	}
	broken.Error = map[string]any{"code": "BAD_REQUEST"}
	s.Cases = []Case{*broken}
	errs := Run(context.Background(), s, StartSupervisors(t))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "unknown method: code: got UNKNOWN_METHOD, want BAD_REQUEST") {
		t.Fatalf("a wrong expected code gave %v, want one failure naming both codes", errs)
	}
}

// TestParseRejectsBadCases: a malformed cases file is refused with the
// case's name and what would be valid.
func TestParseRejectsBadCases(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"sockets": {"live": ""}, "cases": [{"name": "x", "socket": "live"}]}`, `"x": needs exactly one of call, subscribe or raw`},
		{`{"sockets": {"live": ""}, "cases": [{"name": "x", "socket": "dead", "call": {"method": "pid"}, "result": {}}]}`, `socket "dead" is not one of`},
		{`{"sockets": {"live": ""}, "cases": [{"name": "x", "socket": "live", "call": {"method": "pid"}}]}`, `exactly one of result or error`},
		{`{"sockets": {"live": ""}, "cases": [{"name": "x", "socket": "live", "raw": {"then": "maybe"}}]}`, `then "maybe": want open`},
		{`{"sockets": {}, "cases": [], "extra": 1}`, `unknown field "extra"`},
	} {
		if _, err := Parse([]byte(tc.json)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s) = %v, want an error containing %q", tc.json, err, tc.want)
		}
	}
}

// TestMatch covers each matcher, passing and failing.
func TestMatch(t *testing.T) {
	got := map[string]any{"s": "hello world", "n": int8(3), "u": uint64(7), "f": 1.5, "b": true, "a": []any{"x", "y"}, "m": map[string]any{}, "z": nil}
	for _, tc := range []struct {
		want string
		ok   bool
	}{
		{`{"s": "hello world", "n": 3, "u": 7, "b": true, "z": null, "absent": null}`, true},
		{`{"n": 4}`, false},
		{`{"s": {"$substr": "lo wo"}, "n": {"$gte": 3}, "u": {"$type": "int"}, "f": {"$type": "float"}, "m": {"$type": "map"}, "a": {"$contains": ["y"]}}`, true},
		{`{"n": {"$gte": 4}}`, false},
		{`{"f": {"$gte": 1}}`, false},
		{`{"s": {"$type": "int"}}`, false},
		{`{"a": {"$contains": ["q"]}}`, false},
		{`{"a": ["x", "y"]}`, true},
		{`{"a": ["x"]}`, false},
		{`{"s": {"$one_of": ["a", "hello world"]}}`, true},
		{`{"s": {"$one_of": ["a"]}}`, false},
		{`{"s": {"$regexp": "."}}`, false},
		{`{"missing": 1}`, false},
	} {
		s, err := Parse([]byte(`{"sockets": {"l": ""}, "cases": [{"name": "m", "socket": "l", "call": {"method": "x"}, "result": ` + tc.want + `}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if err := Match(s.Cases[0].Result, got); (err == nil) != tc.ok {
			t.Errorf("Match(%s) = %v, want ok=%v", tc.want, err, tc.ok)
		}
	}
}

// runExternal runs another language's runner (argv, then the cases file
// and the sockets) and returns its output and error.
func runExternal(t *testing.T, argv []string, cases string, sockets map[string]string) (string, error) {
	t.Helper()
	argv = append(append([]string{}, argv...), cases)
	for name, path := range sockets {
		argv = append(argv, name+"="+path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	return string(out), err
}

// passExternal: the runner must pass every case (CONFORMANCE PASS <n>
// cases) and exit 0.
func passExternal(t *testing.T, argv []string) {
	t.Helper()
	s, cases := loadSuite(t)
	out, err := runExternal(t, argv, cases, StartSupervisors(t))
	pass := fmt.Sprintf("CONFORMANCE PASS %d cases", len(s.Cases))
	if err != nil || !strings.Contains(out, pass) {
		t.Fatalf("%s: %v, want %q in\n%s", filepath.Base(argv[0]), err, pass, out)
	}
	t.Log(out)
}

// nodeRunner is the Node.js client's runner, with its one dependency
// installed.
func nodeRunner(t *testing.T) []string {
	node := testutil.Program(t, "node", "apt-get install -y nodejs npm")
	dir := filepath.Join(testutil.ModuleRoot(t), "ipc", "testdata", "nodeclient")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@msgpack", "msgpack")); err != nil {
		out, err := exec.Command("npm", "install", "--prefix", dir, "--no-audit", "--no-fund").CombinedOutput()
		if err != nil {
			t.Fatalf("npm install @msgpack/msgpack (run .ci/run): %v\n%s", err, out)
		}
	}
	return []string{node, filepath.Join(dir, "conformance.cjs")}
}

// debianPython is Debian's interpreter, which python3-msgpack installs
// into (a python3 earlier in PATH may be another build without it).
const debianPython = "/usr/bin/python3"

// pythonRunner is clients/python's runner.
func pythonRunner(t *testing.T) []string {
	if err := exec.Command(debianPython, "-c", "import msgpack").Run(); err != nil {
		testutil.Missing(t, "%s with msgpack missing (apt-get install -y python3-msgpack): %v", debianPython, err)
	}
	return []string{debianPython, filepath.Join(testutil.ModuleRoot(t), "clients", "python", "conformance.py")}
}

// luaRunner runs the Neovim plugin's client in nvim --headless (Debian's
// 0.7 has no -l: the script runs with -c luafile, its arguments after --).
func luaRunner(t *testing.T) []string {
	nvim := testutil.Program(t, "nvim", "apt-get install -y neovim")
	plugin := filepath.Join(testutil.ModuleRoot(t), "editors", "nvim")
	return []string{nvim, "--headless", "--clean", "-u", "NONE", "-i", "NONE", "-n", "--cmd", "set rtp^=" + plugin,
		"-c", "luafile " + filepath.Join(plugin, "tests", "conformance.lua"), "--"}
}

// TestNodeClient: the Node.js client (ipc/testdata/nodeclient) passes
// every case.
func TestNodeClient(t *testing.T) { passExternal(t, nodeRunner(t)) }

// TestPythonClient: clients/python passes every case.
func TestPythonClient(t *testing.T) { passExternal(t, pythonRunner(t)) }

// TestLuaClient: the Neovim plugin's Lua client passes every case, run in
// a real nvim --headless.
func TestLuaClient(t *testing.T) { passExternal(t, luaRunner(t)) }

// TestExternalRunnersFailBrokenCase: every other language's runner fails
// (exit 1, naming the case) on a case expecting the wrong code, as the Go
// runner does in TestBrokenCaseFails.
func TestExternalRunnersFailBrokenCase(t *testing.T) {
	data := []byte(`{"protocol": 1, "sockets": {"live": ""}, "cases": [
  {"name": "unknown method", "socket": "live", "call": {"method": "no_such_method"}, "error": {"code": "BAD_REQUEST"}}]}`)
	if _, err := Parse(data); err != nil {
		t.Fatal(err)
	}
	cases := filepath.Join(t.TempDir(), "broken.json")
	if err := os.WriteFile(cases, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sockets := StartSupervisors(t)
	for name, runner := range map[string]func(*testing.T) []string{"node": nodeRunner, "python": pythonRunner, "lua": luaRunner} {
		t.Run(name, func(t *testing.T) {
			out, err := runExternal(t, runner(t), cases, sockets)
			if err == nil || !strings.Contains(out, "FAIL unknown method: ") || !strings.Contains(out, "UNKNOWN_METHOD") ||
				!strings.Contains(out, "CONFORMANCE FAILED 1 of 1") {
				t.Fatalf("a wrong expected code: %v, want exit 1 naming the case and the code it got\n%s", err, out)
			}
		})
	}
}
