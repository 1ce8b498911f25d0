//go:build linux

package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sup-tmux/sup/internal/testing/fakemodel"
)

// TestModelCheck: with a model: section, doctor reports a missing key, an
// endpoint that fails, and a working one, against the loopback stand-in.
func TestModelCheck(t *testing.T) {
	fm, err := fakemodel.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer fm.Close()
	dir := t.TempDir()
	write := func(yaml string) {
		if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	vars := map[string]string{}
	o := &Options{ConfigDir: dir, Getenv: func(k string) string { return vars[k] }}
	if fs := checkModel(context.Background(), o); len(fs) != 0 {
		t.Fatalf("no config, findings %+v", fs)
	}
	write("model:\n  endpoint: " + fm.URL + "/v1\n  name: fake\n  key_env: DOCTOR_MODEL_KEY\n")
	if fs := checkModel(context.Background(), o); len(fs) != 1 || fs[0].Severity != Problem || !strings.Contains(fs[0].Message, "DOCTOR_MODEL_KEY is not set") {
		t.Fatalf("missing key: %+v", fs)
	}
	vars["DOCTOR_MODEL_KEY"] = "k"
	fs := checkModel(context.Background(), o)
	if len(fs) != 1 || fs[0].Severity != OK || !strings.Contains(fs[0].Message, "NEEDS_CONFIRMATION") {
		t.Fatalf("working: %+v", fs)
	}
	fm.Queue(fakemodel.Turn{Text: "Sure! The screen asks to overwrite."})
	if fs := checkModel(context.Background(), o); len(fs) != 1 || fs[0].Severity != Problem || !strings.Contains(fs[0].Fix, "another model") {
		t.Fatalf("prose: %+v", fs)
	}
	write("model:\n  endpoint: http://127.0.0.1:1/v1\n  name: fake\n")
	if fs := checkModel(context.Background(), o); len(fs) != 1 || fs[0].Severity != Problem || !strings.Contains(fs[0].Message, "model http") {
		t.Fatalf("unreachable: %+v", fs)
	}
}
