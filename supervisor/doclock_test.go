//go:build linux

package supervisor

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaimDocumentIdentity: the one-supervisor-per-document lock is the
// document's, not its name's — a symlink, a hard link and a rename of a
// held document are refused as second supervisors, an editor's atomic save
// (a new inode at the same path) too; once released, the renamed document
// starts like any other.
func TestClaimDocumentIdentity(t *testing.T) {
	dir, run := t.TempDir(), t.TempDir()
	doc := filepath.Join(dir, "doc.md")
	if err := os.WriteFile(doc, []byte("# brief\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	claim := func(path, id string) (func(), error) {
		return claimDocument(run, DocHolder{SessionID: id, Name: id, Document: path, SupPID: 1})
	}
	held := doc
	refused := func(path, what string) {
		t.Helper()
		r, err := claim(path, "second")
		var dup *DuplicateError
		if !errors.As(err, &dup) {
			if r != nil {
				r()
			}
			t.Fatalf("%s: second supervisor allowed (err %v)", what, err)
		}
		if dup.Holder.SessionID != "first" || !strings.Contains(err.Error(), "already supervised by session first") {
			t.Fatalf("%s: %v", what, err)
		}
		if path != held && !strings.Contains(err.Error(), path+" (the same file as "+held+")") {
			t.Fatalf("%s: the message does not name both paths: %v", what, err)
		}
	}
	release, err := claim(doc, "first")
	if err != nil {
		t.Fatal(err)
	}
	refused(doc, "the same path")
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(doc, link); err != nil {
		t.Fatal(err)
	}
	refused(link, "a symlink")
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o700)
	dirLink := filepath.Join(dir, "sublink")
	os.Symlink(dir, dirLink)
	refused(filepath.Join(dirLink, "doc.md"), "a path through a symlinked directory")
	hard := filepath.Join(sub, "hard.md")
	if err := os.Link(doc, hard); err != nil {
		t.Fatal(err)
	}
	refused(hard, "a hard link")
	renamed := filepath.Join(dir, "renamed.md")
	if err := os.Rename(doc, renamed); err != nil {
		t.Fatal(err)
	}
	refused(renamed, "the document renamed while supervised")
	// An editor's atomic save: a new file renamed over the held path.
	os.WriteFile(filepath.Join(dir, ".doc.md.swp"), []byte("# brief v2\n"), 0o600)
	if err := os.Rename(filepath.Join(dir, ".doc.md.swp"), doc); err != nil {
		t.Fatal(err)
	}
	refused(doc, "a new file saved over the held path")
	release()

	// A restart after the rename: the document under its new name is
	// free, and held again by the new supervisor.
	held = renamed
	release, err = claim(renamed, "first")
	if err != nil {
		t.Fatalf("the renamed document after its supervisor ended: %v", err)
	}
	refused(hard, "a hard link to the renamed document")
	other := filepath.Join(dir, "other.md")
	os.WriteFile(other, nil, 0o600)
	r, err := claim(other, "third")
	if err != nil {
		t.Fatalf("another document: %v", err)
	}
	r()
	release()
	if left, _ := filepath.Glob(filepath.Join(run, "docs", "*")); len(left) != 0 {
		t.Fatalf("lock files left after release: %v", left)
	}
	if _, err := claim(filepath.Join(dir, "gone.md"), "x"); err == nil || !strings.Contains(err.Error(), "gone.md") {
		t.Fatalf("a missing document: %v", err)
	}
}
