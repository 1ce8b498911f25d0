package plan

import (
	"fmt"
	"os"
	"path/filepath"
)

// CWDSource names where the child's working directory came from. The strings
// are stable: logs and the socket's `state` report them verbatim.
type CWDSource string

// The cwd sources in priority order.
const (
	CWDFromFlag        CWDSource = "cli_flag"
	CWDFromFrontmatter CWDSource = "frontmatter"
	CWDFromProjectRoot CWDSource = "project_root"
	CWDFromDocumentDir CWDSource = "document_dir"
)

// ProjectMarker is the directory whose presence marks a project root.
const ProjectMarker = ".sup"

// CWDInput is what ResolveCWD chooses from.
type CWDInput struct {
	Flag          string // --cwd, relative to InvocationDir
	InvocationDir string
	Frontmatter   string // sup.cwd, relative to the document's directory
	FrontmatterAt int    // its line in the document, for errors
	Document      string // absolute path of DOC
}

// ResolveCWD picks the child's working directory: --cwd, then frontmatter,
// then the nearest ancestor of the document holding .sup/, then the
// document's directory. A configured path that is missing or not a directory
// is an error naming its source: falling through would hide the typo and
// start the agent in the wrong project, the bug this rule exists to prevent.
func ResolveCWD(in CWDInput) (string, CWDSource, error) {
	docDir := filepath.Dir(in.Document)
	switch {
	case in.Flag != "":
		dir, err := configuredDir(in.Flag, in.InvocationDir)
		if err != nil {
			return "", "", fmt.Errorf("--cwd flag: %w", err)
		}
		return dir, CWDFromFlag, nil
	case in.Frontmatter != "":
		dir, err := configuredDir(in.Frontmatter, docDir)
		if err != nil {
			return "", "", fmt.Errorf("%s:%d: frontmatter sup.cwd: %w", in.Document, in.FrontmatterAt, err)
		}
		return dir, CWDFromFrontmatter, nil
	}
	if root, ok := findProjectRoot(docDir); ok {
		return root, CWDFromProjectRoot, nil
	}
	return docDir, CWDFromDocumentDir, nil
}

func configuredDir(p, base string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	p = filepath.Clean(p)
	info, err := os.Stat(p)
	if err != nil {
		if os.IsNotExist(err) {
			return "", fmt.Errorf("path does not exist: %s", p)
		}
		return "", fmt.Errorf("cannot use %s: %w", p, err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("path is not a directory: %s", p)
	}
	return p, nil
}

func findProjectRoot(dir string) (string, bool) {
	for {
		if info, err := os.Stat(filepath.Join(dir, ProjectMarker)); err == nil && info.IsDir() {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
