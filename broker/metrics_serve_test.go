//go:build linux

package broker

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Only loopback addresses serve without --allow-remote; a malformed one
// says what HOST:PORT looks like.
func TestCheckMetricsAddr(t *testing.T) {
	for _, tt := range []struct {
		addr          string
		allow         bool
		loopback, bad bool
	}{
		{"127.0.0.1:9464", false, true, false},
		{"[::1]:0", false, true, false},
		{"localhost:0", false, true, false},
		{":9464", false, false, true},
		{":9464", true, false, false},
		{"example.org:9464", false, false, true},
		{"10.0.0.1:9464", true, false, false},
		{"127.0.0.1", true, false, true},
		{"127.0.0.1:", true, false, true},
	} {
		lb, err := CheckMetricsAddr(tt.addr, tt.allow)
		if (err != nil) != tt.bad || lb != tt.loopback {
			t.Errorf("CheckMetricsAddr(%q, %v) = %v, %v; want loopback %v, error %v", tt.addr, tt.allow, lb, err, tt.loopback, tt.bad)
		}
	}
}

// The textfile is replaced whole, 0644, with no temporary file left; a
// missing directory is named, and a failed collection leaves the old file.
func TestWriteTextfile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sup.prom")
	body := func(s string) func(context.Context) ([]byte, error) {
		return func(context.Context) ([]byte, error) { return []byte(s), nil }
	}
	for _, s := range []string{"first\n", "second\n"} {
		if err := WriteTextfile(t.Context(), path, body(s)); err != nil {
			t.Fatal(err)
		}
	}
	boom := errors.New("boom")
	if err := WriteTextfile(t.Context(), path, func(context.Context) ([]byte, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("failed collection: err %v", err)
	}
	b, err := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if err != nil || string(b) != "second\n" || fi.Mode().Perm() != 0o644 {
		t.Errorf("read %q %v mode %v; want second, 0644", b, err, fi.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the dir, want 1", len(ents))
	}
	err = WriteTextfile(t.Context(), filepath.Join(dir, "no", "sup.prom"), body("x"))
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing dir: err %v", err)
	}
}

// A loopback server answers only requests naming a loopback host: a web
// page that rebinds its own name to 127.0.0.1 gets 403, not the sessions.
func TestMetricsLoopbackHostOnly(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "sessions") })
	h := loopbackHostOnly(ok)
	for host, want := range map[string]int{
		"127.0.0.1:9464": 200, "localhost:9464": 200, "[::1]:9464": 200, "localhost": 200, "127.0.0.2": 200,
		"evil.example:9464": 403, "evil.example": 403, "10.0.0.1:9464": 403, "": 403, "127.0.0.1.evil.example": 403,
	} {
		r := httptest.NewRequest("GET", "/metrics", nil)
		r.Host = host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("Host %q: %d, want %d", host, w.Code, want)
		}
		if want == 403 && strings.Contains(w.Body.String(), "sessions") {
			t.Errorf("Host %q: the body reached a foreign host", host)
		}
	}
}
