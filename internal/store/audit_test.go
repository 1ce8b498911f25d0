//go:build linux

package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readAll returns every line ReadAuditSince gives for the whole history.
func readAll(t *testing.T, dir string, since time.Time) []string {
	t.Helper()
	var lines []string
	if err := ReadAuditSince(dir, since, func(l []byte) { lines = append(lines, string(l)) }); err != nil {
		t.Fatal(err)
	}
	return lines
}

func TestAuditRotatesAndReadsAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	clock := time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	a := NewAudit(dir, AuditConfig{MaxSize: 1 * KiB, Keep: 100})
	a.Now = func() time.Time { return clock }
	t.Cleanup(func() { a.Close() })
	for i := range 100 {
		line := fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("x", 80))
		if err := a.appendLine([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	dated, err := datedFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(dated) < 5 {
		t.Fatalf("%d dated files, want one per KiB", len(dated))
	}
	// Same second: the -N suffixes keep them apart and in order.
	if !strings.HasSuffix(dated[0].path, fmt.Sprintf("Z-%d.jsonl", len(dated)-1)) || !strings.HasSuffix(dated[len(dated)-1].path, "audit-20261125T080000Z.jsonl") {
		t.Errorf("names %s … %s", dated[0].path, dated[len(dated)-1].path)
	}
	for _, d := range dated {
		if d.size > int64(KiB) {
			t.Errorf("%s: %d bytes over the cap", d.path, d.size)
		}
	}
	lines := readAll(t, dir, time.Time{})
	if len(lines) != 100 {
		t.Fatalf("%d lines, want 100", len(lines))
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, fmt.Sprintf(`{"n":%d,`, i)) {
			t.Fatalf("line %d is %q: out of order", i, l)
		}
	}
}

func TestAuditReadWindowStopsAtOlderFile(t *testing.T) {
	dir := t.TempDir()
	a := NewAudit(dir, AuditConfig{MaxSize: 4 * KiB})
	t.Cleanup(func() { a.Close() })
	pad := strings.Repeat("y", 3000)
	a.appendLine([]byte(`{"n":"old","p":"` + pad + `"}`))
	a.appendLine([]byte(`{"n":"mid","p":"` + pad + `"}`)) // rotates "old" away
	a.appendLine([]byte(`{"n":"new","p":"` + pad + `"}`)) // rotates "mid" away
	dated, _ := datedFiles(dir)
	if len(dated) != 2 {
		t.Fatalf("%d dated files, want 2", len(dated))
	}
	now := time.Now()
	os.Chtimes(dated[1].path, now.Add(-48*time.Hour), now.Add(-48*time.Hour)) // "old"
	os.Chtimes(dated[0].path, now.Add(-time.Hour), now.Add(-time.Hour))       // "mid"
	lines := readAll(t, dir, now.Add(-24*time.Hour))
	if len(lines) != 2 || !strings.Contains(lines[0], "mid") || !strings.Contains(lines[1], "new") {
		t.Errorf("window of 24h read %d lines %.40q, want mid then new (the line before the rotation)", len(lines), lines)
	}
}

func TestAuditRetentionByCountAndAge(t *testing.T) {
	dir := t.TempDir()
	clock := time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	a := NewAudit(dir, AuditConfig{MaxSize: 4 * KiB, Keep: 3})
	a.Now = func() time.Time { return clock }
	t.Cleanup(func() { a.Close() })
	pad := strings.Repeat("z", 3000)
	for range 10 {
		clock = clock.Add(time.Minute)
		if err := a.appendLine([]byte(`{"p":"` + pad + `"}`)); err != nil {
			t.Fatal(err)
		}
	}
	dated, _ := datedFiles(dir)
	if len(dated) != 3 || !strings.Contains(dated[0].path, "T081000Z") {
		t.Fatalf("kept %v, want the 3 newest", dated)
	}
	// By age: files last written 3 days ago go with keep_days 2.
	b := NewAudit(dir, AuditConfig{MaxSize: 4 * KiB, Keep: 100, KeepDays: 2})
	b.Now = func() time.Time { return time.Now() }
	t.Cleanup(func() { b.Close() })
	old := time.Now().Add(-72 * time.Hour)
	for _, d := range dated {
		os.Chtimes(d.path, old, old)
	}
	b.appendLine([]byte(`{"p":"` + pad + `"}`)) // rotates
	after, _ := datedFiles(dir)
	if len(after) != 1 {
		t.Errorf("after an age-limited rotation %d dated files, want only the new one", len(after))
	}
}

func TestAuditCutsTornTail(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, AuditFile), []byte("{\"n\":1}\n{\"n\":2,\"cut"), 0o600)
	if got := readAll(t, dir, time.Time{}); len(got) != 1 {
		t.Errorf("reader gave %q, want the whole line only", got)
	}
	a := NewAudit(dir, AuditConfig{})
	t.Cleanup(func() { a.Close() })
	if err := a.appendLine([]byte(`{"n":3}`)); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, AuditFile))
	if string(data) != "{\"n\":1}\n{\"n\":3}\n" {
		t.Errorf("file %q: the torn line must be cut, not glued to the next", data)
	}
	if err := a.appendLine([]byte("a\nb")); err == nil || !strings.Contains(err.Error(), "newline") {
		t.Errorf("a line with a newline: err %v", err)
	}
}

func TestAuditUnwritableDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "f")
	os.WriteFile(dir, nil, 0o600) // a file where the dir should be
	err := NewAudit(dir, AuditConfig{}).appendLine([]byte(`{}`))
	if err == nil || !strings.Contains(err.Error(), "audit") {
		t.Errorf("err %v, want an audit error", err)
	}
}

// TestAuditTriggersAcrossRotation: Triggers finds a document's trigger
// records in the rotated files too, only within the window, never another
// document's (even one whose name contains it, or needs JSON escaping) nor
// the broker's routing steps.
func TestAuditTriggersAcrossRotation(t *testing.T) {
	dir := t.TempDir()
	a := NewAudit(dir, AuditConfig{MaxSize: 1 * KiB, Keep: 100})
	t.Cleanup(func() { a.Close() })
	now := time.Now()
	doc := `/w/<a&b> "q".md`
	pad := strings.Repeat("p", 300) // three records a file: the early ones rotate away
	recs := []AuditRecord{
		{Time: now.Add(-48 * time.Hour).UnixMilli(), TriggerID: "too-old", Document: doc},
		{Time: now.Add(-time.Hour).UnixMilli(), TriggerID: "t1", Document: doc, Result: "delivered", Message: pad},
		{Time: now.Add(-time.Hour).UnixMilli(), TriggerID: "other", Document: "/w/other.md", Message: pad},
		{Time: now.Add(-time.Hour).UnixMilli(), TriggerID: "longer", Document: doc + ".bak", Message: pad},
		{Time: now.Add(-time.Hour).UnixMilli(), TriggerID: "route", Document: doc, Source: "broker", Message: pad},
		{Time: now.Add(-time.Minute).UnixMilli(), TriggerID: "t2", Document: doc, Result: "timeout", Message: pad},
		{Time: now.UnixMilli(), Document: doc, Message: "no trigger id"},
	}
	for _, r := range recs {
		if err := a.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if dated, _ := datedFiles(dir); len(dated) < 2 {
		t.Fatalf("%d rotated files: the test needs t1 in a rotated one", len(dated))
	}
	got, err := a.Triggers(doc, now.Add(-24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range got {
		ids = append(ids, r.TriggerID+"="+string(r.Result))
	}
	if strings.Join(ids, " ") != "t1=delivered t2=timeout" {
		t.Errorf("Triggers = %v, want t1=delivered t2=timeout, oldest first", ids)
	}
	if none, err := NewAudit(t.TempDir(), AuditConfig{}).Triggers(doc, now); err != nil || len(none) != 0 {
		t.Errorf("no audit yet: %v, %v", none, err)
	}
}

// TestAuditEscapesUntrustedRunes: an audit line carries agents' text, and
// people read the file with tail: C1, DEL and bidi runes are written as
// \uXXXX (valid JSON, the same strings decoded), and a document whose path
// holds one is still found by Triggers.
func TestAuditEscapesUntrustedRunes(t *testing.T) {
	dir := t.TempDir()
	a := NewAudit(dir, AuditConfig{})
	doc := "/w/doc\u009b.md"
	rec := AuditRecord{Time: time.Now().UnixMilli(), TriggerID: "t1", Document: doc, Result: "delivered",
		Message: "ok \u009b2J \u202e \x7f \x1b]52;c;aGk=\x07"}
	if err := a.Append(rec); err != nil {
		t.Fatal(err)
	}
	lines := readAll(t, dir, time.Time{})
	if len(lines) != 1 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, r := range lines[0] {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x202e {
			t.Fatalf("raw %U in the audit line %q", r, lines[0])
		}
	}
	got, err := a.Triggers(doc, time.Time{})
	if err != nil || len(got) != 1 || got[0].Message != rec.Message || got[0].Document != doc {
		t.Fatalf("Triggers(%q) = %+v, %v; want the record back, text unchanged", doc, got, err)
	}
}
