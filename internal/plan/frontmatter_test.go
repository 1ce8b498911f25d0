//go:build linux

package plan

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestUnitFrontmatterParse(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want Frontmatter
	}{
		{
			name: "all keys, other keys ignored",
			doc: `---
title: My doc
tags: [a, b]
cwd: /top/level/is/not/ours
sup:
  cwd: ../proj
  profile: codex
  command: [codex, --model, o3]
  env:
    FOO: bar
    ZED: $HOME/x
    ALPHA: "1"
  env_passthrough: [AWS_PROFILE, MY_*]
  name: builder
  workspace: ws1
  role: reviewer
author:
  name: someone
  emails: [a@b.c]
---
# Body

sup:
  name: not-frontmatter
`,
			want: Frontmatter{
				CWD:            "../proj",
				CWDLine:        6,
				Profile:        "codex",
				Command:        []string{"codex", "--model", "o3"},
				Env:            map[string]string{"FOO": "bar", "ZED": "$HOME/x", "ALPHA": "1"},
				EnvOrder:       []string{"FOO", "ZED", "ALPHA"},
				EnvPassthrough: []string{"AWS_PROFILE", "MY_*"},
				Name:           "builder",
				Workspace:      "ws1",
				Role:           "reviewer",
			},
		},
		{name: "no frontmatter", doc: "# Title\n\nbody\n", want: Frontmatter{}},
		{name: "empty document", doc: "", want: Frontmatter{}},
		{name: "frontmatter without sup key", doc: "---\ntitle: x\ntags: [a]\n---\nbody\n", want: Frontmatter{}},
		{name: "empty frontmatter block", doc: "---\n---\nbody\n", want: Frontmatter{}},
		{name: "comment-only frontmatter", doc: "---\n# nothing here\n---\n", want: Frontmatter{}},
		{name: "sup empty map", doc: "---\nsup: {}\n---\n", want: Frontmatter{}},
		{
			name: "other keys of any type ignored",
			doc:  "---\nother: {nested: [1, 2, {x: y}]}\nlist: [1, 2]\nnum: 3\nnull_key:\nsup:\n  name: n\n---\n",
			want: Frontmatter{Name: "n"},
		},
		{
			name: "flow style sup map",
			doc:  "---\nsup: {name: n, command: [sh, -c, 'echo hi'], env: {A: b}}\n---\n",
			want: Frontmatter{Name: "n", Command: []string{"sh", "-c", "echo hi"}, Env: map[string]string{"A": "b"}, EnvOrder: []string{"A"}},
		},
		{
			name: "UTF-8 BOM before the opening line",
			doc:  "\xef\xbb\xbf---\nsup:\n  name: bom\n---\nbody\n",
			want: Frontmatter{Name: "bom"},
		},
		{
			name: "CRLF line endings",
			doc:  "---\r\ntitle: x\r\nsup:\r\n  name: crlf\r\n  cwd: sub\r\n---\r\nbody\r\n",
			want: Frontmatter{Name: "crlf", CWD: "sub", CWDLine: 5},
		},
		{
			name: "closed by ... line",
			doc:  "---\nsup:\n  role: r\n...\nbody\n",
			want: Frontmatter{Role: "r"},
		},
		{
			name: "trailing blanks on delimiters",
			doc:  "--- \t\nsup:\n  workspace: w\n---  \nbody\n",
			want: Frontmatter{Workspace: "w"},
		},
		{
			name: "closing line at EOF without newline",
			doc:  "---\nsup:\n  name: eof\n---",
			want: Frontmatter{Name: "eof"},
		},
		{
			name: "later --- in the body does not matter",
			doc:  "---\nsup:\n  name: first\n---\nbody\n---\nsup:\n  name: second\n---\n",
			want: Frontmatter{Name: "first"},
		},
		{
			name: "--- not on the first line is not frontmatter",
			doc:  "\n---\nsup:\n  name: x\n---\n",
			want: Frontmatter{},
		},
		{
			name: "env_passthrough empty list",
			doc:  "---\nsup:\n  env_passthrough: []\n---\n",
			want: Frontmatter{EnvPassthrough: []string{}},
		},
		{
			name: "env keeps document order",
			doc:  "---\nsup:\n  env:\n    Z: 1\n    A: 2\n    M: 3\n---\n",
			want: Frontmatter{Env: map[string]string{"Z": "1", "A": "2", "M": "3"}, EnvOrder: []string{"Z", "A", "M"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFrontmatter("doc.md", []byte(tt.doc))
			if err != nil {
				t.Fatalf("ParseFrontmatter: unexpected error: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseFrontmatter =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

func TestUnitFrontmatterErrors(t *testing.T) {
	tests := []struct {
		name     string
		doc      string
		line     string // the "path:LINE: " prefix the error must start with
		contains []string
	}{
		{
			name:     "unclosed block",
			doc:      "---\nsup:\n  name: a\n\nbody\n",
			line:     "doc.md:1: ",
			contains: []string{"never closed"},
		},
		{
			name:     "opening line only",
			doc:      "---",
			line:     "doc.md:1: ",
			contains: []string{"never closed"},
		},
		{
			name:     "opening line only with newline",
			doc:      "---\n",
			line:     "doc.md:1: ",
			contains: []string{"never closed"},
		},
		{
			name:     "malformed YAML: bad indentation",
			doc:      "---\ntitle: x\nsup:\n  cwd: a\n   x: b\n---\n",
			line:     "doc.md:5: ",
			contains: []string{"malformed frontmatter YAML", "mapping values are not allowed"},
		},
		{
			name:     "malformed YAML: tab indentation",
			doc:      "---\ntitle: x\n\tfoo: bar\n---\n",
			line:     "doc.md:3: ",
			contains: []string{"malformed frontmatter YAML", "tab"},
		},
		{
			name:     "malformed YAML: bad token",
			doc:      "---\na: b\nc: d\ne: @x\n---\n",
			line:     "doc.md:4: ",
			contains: []string{"malformed frontmatter YAML", "cannot start any token"},
		},
		{
			name:     "malformed YAML with CRLF",
			doc:      "---\r\ntitle: x\r\nsup:\r\n  cwd: a\r\n   x: b\r\n---\r\n",
			line:     "doc.md:5: ",
			contains: []string{"malformed frontmatter YAML"},
		},
		{
			name:     "lone carriage return",
			doc:      "---\ntitle: x\nsup:\r  cwd: a\n---\n",
			line:     "doc.md:3: ",
			contains: []string{`carriage return (\r) not followed by a newline`},
		},
		{
			name:     "frontmatter is a list",
			doc:      "---\n- a\n- b\n---\n",
			line:     "doc.md:2: ",
			contains: []string{"must be a YAML map", "a list"},
		},
		{
			name:     "sup is a string",
			doc:      "---\ntitle: t\nsup: claude\n---\n",
			line:     "doc.md:3: ",
			contains: []string{"sup: must be a map", `"claude"`},
		},
		{
			name:     "sup is a list",
			doc:      "---\ntitle: t\nsup:\n  - cwd\n---\n",
			line:     "doc.md:4: ",
			contains: []string{"sup: must be a map", "a list"},
		},
		{
			name:     "sup is null",
			doc:      "---\ntitle: t\nsup:\n---\n",
			line:     "doc.md:3: ",
			contains: []string{"sup: must be a map", "null"},
		},
		{
			name:     "command is a string",
			doc:      "---\nsup:\n  name: x\n  command: claude --resume\n---\n",
			line:     "doc.md:4: ",
			contains: []string{"sup.command", "must be a list of strings"},
		},
		{
			name:     "command is empty",
			doc:      "---\nsup:\n  command: []\n---\n",
			line:     "doc.md:3: ",
			contains: []string{"sup.command", "must not be empty"},
		},
		{
			name:     "command item is a list",
			doc:      "---\nsup:\n  command: [claude, [x]]\n---\n",
			line:     "doc.md:3: ",
			contains: []string{"sup.command", "item 2"},
		},
		{
			name:     "env is a list",
			doc:      "---\nsup:\n  name: x\n  env: [A=1]\n---\n",
			line:     "doc.md:4: ",
			contains: []string{"sup.env", "must be a map"},
		},
		{
			name:     "env is a string",
			doc:      "---\nsup:\n  env: A=1\n---\n",
			line:     "doc.md:3: ",
			contains: []string{"sup.env", "must be a map"},
		},
		{
			name:     "env value is a list",
			doc:      "---\nsup:\n  env: {A: [1]}\n---\n",
			line:     "doc.md:3: ",
			contains: []string{"sup.env", "A must be a string"},
		},
		{
			name:     "env bad variable name",
			doc:      "---\nsup:\n  env: {1BAD: x}\n---\n",
			line:     "doc.md:3: ",
			contains: []string{"sup.env", `"1BAD"`, "not a valid variable name"},
		},
		{
			name:     "env variable name with dash",
			doc:      "---\nsup:\n  env: {BAD-NAME: x}\n---\n",
			line:     "doc.md:3: ",
			contains: []string{"sup.env", `"BAD-NAME"`},
		},
		{
			name:     "env_passthrough is a string",
			doc:      "---\nsup:\n  env_passthrough: HOME\n---\n",
			line:     "doc.md:3: ",
			contains: []string{"sup.env_passthrough", "must be a list"},
		},
		{
			name:     "cwd is a list",
			doc:      "---\nsup:\n  cwd: [a]\n---\n",
			line:     "doc.md:3: ",
			contains: []string{"sup.cwd", "must be a string"},
		},
		{
			name:     "cwd is null",
			doc:      "---\nsup:\n  cwd:\n  name: x\n---\n",
			line:     "doc.md:3: ",
			contains: []string{"sup.cwd", "must be a string", "null"},
		},
		{
			name:     "profile is a map",
			doc:      "---\nsup:\n  profile: {name: claude}\n---\n",
			line:     "doc.md:3: ",
			contains: []string{"sup.profile", "must be a string"},
		},
		{
			name:     "unknown key with its line",
			doc:      "---\ntitle: x\nsup:\n  name: a\n  cwdd: ../x\n---\n",
			line:     "doc.md:5: ",
			contains: []string{"sup.cwdd", "unknown key", "valid:", "cwd"},
		},
		{
			name:     "unknown key after other frontmatter",
			doc:      "---\na: 1\nb: 2\nc:\n  - x\n  - y\nsup:\n  profile: claude\n\n  workdir: /tmp\n---\n",
			line:     "doc.md:10: ",
			contains: []string{"sup.workdir", "unknown key"},
		},
		{
			name:     "unknown key with BOM and CRLF",
			doc:      "\xef\xbb\xbf---\r\ntitle: x\r\nsup:\r\n  name: a\r\n  comand: [x]\r\n---\r\n",
			line:     "doc.md:5: ",
			contains: []string{"sup.comand", "unknown key"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFrontmatter("doc.md", []byte(tt.doc))
			if err == nil {
				t.Fatalf("ParseFrontmatter: expected an error, got nil")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, tt.line) {
				t.Errorf("error %q: want prefix %q", msg, tt.line)
			}
			for _, c := range tt.contains {
				if !strings.Contains(msg, c) {
					t.Errorf("error %q: want it to contain %q", msg, c)
				}
			}
		})
	}
}

// TestUnitFrontmatterYAMLLines covers malformed-YAML cases whose line yaml.v3
// itself gets wrong or omits (0-based parser errors, nothing on the first line).
func TestUnitFrontmatterYAMLLines(t *testing.T) {
	tests := []struct {
		name, doc, line string
	}{
		{"parser error is off by one", "---\na: b\nc: d\n: : :\n---\n", "doc.md:4: "},
		{"error on the first YAML line has no line", "---\nbad: : :\n---\n", "doc.md:2: "},
		{"unclosed flow list", "---\na: b\nname: [unclosed\nc: d\n---\n", "doc.md:3: "},
		{"multi-line flow list then a bad line", "---\na: [1,\n  2]\nb: ][\n---\n", "doc.md:4: "},
		{"unknown anchor", "---\nx: 1\na: *nope\n---\n", "doc.md:3: "},
		{"bad env entry points at the entry", "---\nsup:\n  env:\n    A: x\n    B: [1]\n---\n", "doc.md:5: "},
		{"bad command item points at the item", "---\nsup:\n  command:\n    - a\n    - {b: 1}\n---\n", "doc.md:5: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFrontmatter("doc.md", []byte(tt.doc))
			if err == nil {
				t.Fatal("expected an error")
			}
			if !strings.HasPrefix(err.Error(), tt.line) {
				t.Fatalf("error %q does not start with %q", err, tt.line)
			}
		})
	}
}

func TestUnitFrontmatterReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "session.md")
	if err := os.WriteFile(path, []byte("---\nsup:\n  name: from-file\n  bogus: 1\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFrontmatter(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+":4: ") {
		t.Fatalf("ReadFrontmatter error = %v, want prefix %q", err, path+":4: ")
	}

	good := filepath.Join(dir, "good.md")
	if err := os.WriteFile(good, []byte("---\nsup:\n  name: from-file\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fm, err := ReadFrontmatter(good)
	if err != nil || fm.Name != "from-file" {
		t.Fatalf("ReadFrontmatter = %#v, %v; want Name from-file", fm, err)
	}

	missing := filepath.Join(dir, "missing.md")
	if _, err := ReadFrontmatter(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("ReadFrontmatter(missing) error = %v, want it to name %s", err, missing)
	}
}
