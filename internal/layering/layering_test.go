package layering

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const mod = "github.com/sup-tmux/sup/"

// rule: pkg's dependencies (transitive, test files excluded) include none
// that equals or lies under one of forbid.
type rule struct {
	pkg, why string
	forbid   []string
}

var supervisorRuntime = []string{mod + "supervisor", "github.com/creack/pty"}

var rules = []rule{
	{"internal/plan", "plan is pure configuration: it takes internal/config's types, the supervisor imports plan",
		[]string{mod + "supervisor", mod + "broker", mod + "hooks", mod + "cmd", "github.com/creack/pty"}},
	{"internal/store", "store owns the files on disk and sits below ipc's protocol: audit records hold its values as strings",
		[]string{mod + "supervisor", mod + "broker", mod + "hooks", mod + "cmd", mod + "ipc", mod + "internal/plan", "github.com/creack/pty"}},
	{"internal/config", "config is data with defaults and validation, the standard library only",
		[]string{strings.TrimSuffix(mod, "/")}},
	{"broker", "the broker routes and lists; it runs no agent (no pty, screen, classifier or process code)",
		supervisorRuntime},
	{"cmd/sup", "the product ships none of the test infrastructure (internal/testing: rigs, real-agent harness, model stand-in, conformance, bench)",
		[]string{mod + "internal/testing"}},
	{"ipc", "ipc is the public Go API: a client that imports it gets the protocol only",
		[]string{mod + "supervisor", mod + "broker", mod + "hooks", mod + "cmd", mod + "internal/plan", mod + "internal/store", mod + "internal/config"}},
}

func under(dep, prefix string) bool {
	return dep == prefix || strings.HasPrefix(dep, prefix+"/")
}

// TestImportRules: go list's view of each package's dependencies keeps
// the rules of specs/supervisor.md ("Layout").
func TestImportRules(t *testing.T) {
	args := []string{"list", "-f", `{{.ImportPath}} {{join .Deps " "}}`}
	for _, r := range rules {
		args = append(args, mod+r.pkg)
	}
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		deps[f[0]] = f[1:]
	}
	for _, r := range rules {
		got, ok := deps[mod+r.pkg]
		if !ok {
			t.Fatalf("go list printed nothing for %s:\n%s", r.pkg, out)
		}
		for _, d := range got {
			for _, f := range r.forbid {
				if under(d, f) {
					t.Errorf("%s depends on %s (forbidden: %s/...): %s; see specs/supervisor.md, \"Layout\"", r.pkg, d, f, r.why)
				}
			}
		}
	}
}

// TestRulesBite: the check above sees a real dependency, so a rule that
// names a package go list never prints cannot pass vacuously.
func TestRulesBite(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Deps " "}}`, mod+"supervisor/trigger").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+string(out)+" ", " "+mod+"internal/config ") {
		t.Fatalf("go list -deps supervisor/trigger lacks internal/config: %s", out)
	}
	if !under(mod+"supervisor/trigger", mod+"supervisor") || under(mod+"supervisorx", mod+"supervisor") {
		t.Fatal("under() is wrong")
	}
}

// TestNoClientPathCalls: sup's own packages find the runtime dir and the
// sockets through internal/paths; ipc.RuntimeDir and ipc.SocketPath are
// the entry points for clients outside the module (specs/supervisor.md,
// "Foundations").
func TestNoClientPathCalls(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			name := d.Name()
			if rel == "ipc" || name == "testdata" || name == "node_modules" || (rel != "." && strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir // another module: a client, free to use ipc's API
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		local := ""
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == mod+"ipc" {
				local = "ipc"
				if imp.Name != nil {
					local = imp.Name.Name
				}
			}
		}
		if local == "" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == local && (sel.Sel.Name == "RuntimeDir" || sel.Sel.Name == "SocketPath") {
				t.Errorf("%s: calls %s.%s: sup's own code uses internal/paths (paths.RuntimeDir, paths.Socket)", fset.Position(call.Pos()), local, sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
