//go:build linux

package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The source tags appear in logs and in the socket's state: they must not change.
func TestUnitCWDSourceStrings(t *testing.T) {
	for got, want := range map[CWDSource]string{
		CWDFromFlag:        "cli_flag",
		CWDFromFrontmatter: "frontmatter",
		CWDFromProjectRoot: "project_root",
		CWDFromDocumentDir: "document_dir",
	} {
		if string(got) != want {
			t.Errorf("CWDSource %q, want %q", got, want)
		}
	}
	if ProjectMarker != ".sup" {
		t.Errorf("ProjectMarker = %q, want .sup", ProjectMarker)
	}
}

// unitMkdirs creates each directory under root and returns root.
func unitMkdirs(t *testing.T, root string, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func unitWriteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// unitTempRoot returns a temporary directory with no .sup/ in any ancestor,
// so the project-root walk cannot escape the test's own tree.
func unitTempRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := findProjectRoot(filepath.Dir(root)); ok {
		t.Skipf("an ancestor of the temp dir holds .sup/ (%s); cannot test the document_dir fallback", r)
	}
	return root
}

func TestUnitCWDResolve(t *testing.T) {
	root := unitTempRoot(t)
	unitMkdirs(t, root,
		"inv/flagdir",
		"proj/.sup",
		"proj/a/b/c/d",
		"proj/sub/fmdir",
		"proj/a/b/docfm",
		"nested/.sup",
		"nested/inner/.sup",
		"nested/inner/deep/er",
		"filemarker/x",
		"loose/y",
	)
	unitWriteFile(t, filepath.Join(root, "filemarker", ".sup"), "not a dir")
	inv := filepath.Join(root, "inv")
	deepDoc := filepath.Join(root, "proj/a/b/c/d/doc.md")
	looseDoc := filepath.Join(root, "loose/y/doc.md")
	unitWriteFile(t, deepDoc, "x")
	unitWriteFile(t, looseDoc, "x")

	tests := []struct {
		name       string
		in         CWDInput
		wantDir    string
		wantSource CWDSource
	}{
		{
			name:       "flag absolute",
			in:         CWDInput{Flag: filepath.Join(root, "proj/sub"), InvocationDir: inv, Document: deepDoc},
			wantDir:    filepath.Join(root, "proj/sub"),
			wantSource: CWDFromFlag,
		},
		{
			name:       "flag relative to invocation dir",
			in:         CWDInput{Flag: "flagdir", InvocationDir: inv, Document: deepDoc},
			wantDir:    filepath.Join(inv, "flagdir"),
			wantSource: CWDFromFlag,
		},
		{
			name:       "flag dot is the invocation dir",
			in:         CWDInput{Flag: ".", InvocationDir: inv, Document: deepDoc},
			wantDir:    inv,
			wantSource: CWDFromFlag,
		},
		{
			name:       "flag relative with .. and trailing slash is cleaned",
			in:         CWDInput{Flag: "../proj/sub/fmdir/../fmdir/", InvocationDir: inv, Document: deepDoc},
			wantDir:    filepath.Join(root, "proj/sub/fmdir"),
			wantSource: CWDFromFlag,
		},
		{
			name:       "flag beats frontmatter and project root",
			in:         CWDInput{Flag: "flagdir", InvocationDir: inv, Frontmatter: "../../../../sub/fmdir", Document: deepDoc},
			wantDir:    filepath.Join(inv, "flagdir"),
			wantSource: CWDFromFlag,
		},
		{
			name:       "frontmatter relative to document dir",
			in:         CWDInput{Frontmatter: "../../../../sub/fmdir", InvocationDir: inv, Document: deepDoc},
			wantDir:    filepath.Join(root, "proj/sub/fmdir"),
			wantSource: CWDFromFrontmatter,
		},
		{
			name:       "frontmatter dot is the document dir, not the project root",
			in:         CWDInput{Frontmatter: ".", InvocationDir: inv, Document: deepDoc},
			wantDir:    filepath.Join(root, "proj/a/b/c/d"),
			wantSource: CWDFromFrontmatter,
		},
		{
			name:       "frontmatter absolute",
			in:         CWDInput{Frontmatter: filepath.Join(root, "proj/a/b/docfm"), InvocationDir: inv, Document: looseDoc},
			wantDir:    filepath.Join(root, "proj/a/b/docfm"),
			wantSource: CWDFromFrontmatter,
		},
		{
			name:       "frontmatter beats project root",
			in:         CWDInput{Frontmatter: "../../docfm", Document: deepDoc},
			wantDir:    filepath.Join(root, "proj/a/b/docfm"),
			wantSource: CWDFromFrontmatter,
		},
		{
			name:       "deeply nested project root",
			in:         CWDInput{InvocationDir: inv, Document: deepDoc},
			wantDir:    filepath.Join(root, "proj"),
			wantSource: CWDFromProjectRoot,
		},
		{
			name:       "document in the project root itself",
			in:         CWDInput{InvocationDir: inv, Document: filepath.Join(root, "proj/doc.md")},
			wantDir:    filepath.Join(root, "proj"),
			wantSource: CWDFromProjectRoot,
		},
		{
			name:       "nearest project root wins",
			in:         CWDInput{InvocationDir: inv, Document: filepath.Join(root, "nested/inner/deep/er/doc.md")},
			wantDir:    filepath.Join(root, "nested/inner"),
			wantSource: CWDFromProjectRoot,
		},
		{
			name:       "a .sup file is not a project marker",
			in:         CWDInput{InvocationDir: inv, Document: filepath.Join(root, "filemarker/x/doc.md")},
			wantDir:    filepath.Join(root, "filemarker/x"),
			wantSource: CWDFromDocumentDir,
		},
		{
			name:       "document dir fallback",
			in:         CWDInput{InvocationDir: inv, Document: looseDoc},
			wantDir:    filepath.Join(root, "loose/y"),
			wantSource: CWDFromDocumentDir,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, source, err := ResolveCWD(tt.in)
			if err != nil {
				t.Fatalf("ResolveCWD: unexpected error: %v", err)
			}
			if dir != tt.wantDir || source != tt.wantSource {
				t.Errorf("ResolveCWD = %q, %q; want %q, %q", dir, source, tt.wantDir, tt.wantSource)
			}
		})
	}
}

func TestUnitCWDResolveErrors(t *testing.T) {
	root := unitTempRoot(t)
	unitMkdirs(t, root, "inv/onlyinv", "proj/.sup", "proj/docs/onlydoc")
	inv := filepath.Join(root, "inv")
	doc := filepath.Join(root, "proj/docs/doc.md")
	unitWriteFile(t, doc, "x")
	unitWriteFile(t, filepath.Join(inv, "afile"), "x")
	unitWriteFile(t, filepath.Join(root, "proj/docs/afile"), "x")

	tests := []struct {
		name     string
		in       CWDInput
		prefix   string
		contains []string
	}{
		{
			name:     "flag missing",
			in:       CWDInput{Flag: "nope", InvocationDir: inv, Document: doc},
			prefix:   "--cwd flag: ",
			contains: []string{"does not exist", filepath.Join(inv, "nope")},
		},
		{
			name:     "flag absolute missing",
			in:       CWDInput{Flag: filepath.Join(root, "gone"), InvocationDir: inv, Document: doc},
			prefix:   "--cwd flag: ",
			contains: []string{"does not exist", filepath.Join(root, "gone")},
		},
		{
			name:     "flag is a file",
			in:       CWDInput{Flag: "afile", InvocationDir: inv, Document: doc},
			prefix:   "--cwd flag: ",
			contains: []string{"not a directory", filepath.Join(inv, "afile")},
		},
		{
			name:     "flag missing does not fall through to a valid frontmatter cwd",
			in:       CWDInput{Flag: "nope", InvocationDir: inv, Frontmatter: "onlydoc", Document: doc},
			prefix:   "--cwd flag: ",
			contains: []string{"does not exist"},
		},
		{
			name:     "flag is relative to the invocation dir, not the document dir",
			in:       CWDInput{Flag: "onlydoc", InvocationDir: inv, Document: doc},
			prefix:   "--cwd flag: ",
			contains: []string{filepath.Join(inv, "onlydoc")},
		},
		{
			name:     "frontmatter missing",
			in:       CWDInput{Frontmatter: "nope", InvocationDir: inv, Document: doc},
			prefix:   doc + ":0: frontmatter sup.cwd: ",
			contains: []string{doc, "does not exist", filepath.Join(root, "proj/docs/nope")},
		},
		{
			name:     "frontmatter is a file",
			in:       CWDInput{Frontmatter: "afile", InvocationDir: inv, Document: doc},
			prefix:   doc + ":0: frontmatter sup.cwd: ",
			contains: []string{doc, "not a directory", filepath.Join(root, "proj/docs/afile")},
		},
		{
			name:     "frontmatter missing does not fall through to the project root",
			in:       CWDInput{Frontmatter: "../nope", InvocationDir: inv, Document: doc},
			prefix:   doc + ":0: frontmatter sup.cwd: ",
			contains: []string{"does not exist", filepath.Join(root, "proj/nope")},
		},
		{
			name:     "frontmatter is relative to the document dir, not the invocation dir",
			in:       CWDInput{Frontmatter: "onlyinv", InvocationDir: inv, Document: doc},
			prefix:   doc + ":0: frontmatter sup.cwd: ",
			contains: []string{filepath.Join(root, "proj/docs/onlyinv")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, source, err := ResolveCWD(tt.in)
			if err == nil {
				t.Fatalf("ResolveCWD = %q, %q; want an error", dir, source)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, tt.prefix) {
				t.Errorf("error %q: want prefix %q", msg, tt.prefix)
			}
			for _, c := range tt.contains {
				if !strings.Contains(msg, c) {
					t.Errorf("error %q: want it to contain %q", msg, c)
				}
			}
		})
	}
}
