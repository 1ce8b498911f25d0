//go:build linux

package web

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// shortDir is a runtime dir whose socket paths fit sun_path.
func shortDir(t testing.TB) string {
	t.Helper()
	d, err := os.MkdirTemp("", "supweb-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// rig is a running sup web over stand-in supervisors in dir.
type rig struct {
	t    testing.TB
	log  *lockedBuffer // the server's log
	s    *Server
	dir  string
	base string // http://127.0.0.1:PORT
	jar  *http.Cookie
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func startRig(t testing.TB, dir string) *rig {
	t.Helper()
	f := &broker.Fleet{RuntimeDir: dir, Timeout: time.Second, Deadline: time.Second}
	logs := &lockedBuffer{}
	s, err := New(Config{Listen: "127.0.0.1:0", Fleet: f, Local: true, Log: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return &rig{t: t, s: s, dir: dir, base: "http://" + s.Addr().String(), log: logs}
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	Timeout:       10 * time.Second,
}

func (r *rig) do(method, path string, hdr map[string]string, body string) *http.Response {
	r.t.Helper()
	req, err := http.NewRequest(method, r.base+path, strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := noRedirect.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { res.Body.Close() })
	return res
}

// signIn exchanges the token for the cookie.
func (r *rig) signIn() *http.Cookie {
	r.t.Helper()
	u, _ := url.Parse(r.s.URL())
	res := r.do("GET", "/?"+u.RawQuery, nil, "")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		r.t.Fatalf("token exchange: %s, Location %q; want 303 to /", res.Status, res.Header.Get("Location"))
	}
	for _, c := range res.Cookies() {
		if c.Name == CookieName {
			if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
				r.t.Fatalf("cookie %+v: want HttpOnly, SameSite=Strict, Path=/", c)
			}
			r.jar = c
			return c
		}
	}
	r.t.Fatalf("token exchange set no %s cookie: %v", CookieName, res.Header.Values("Set-Cookie"))
	return nil
}

func (r *rig) cookieHdr() map[string]string {
	return map[string]string{"Cookie": CookieName + "=" + r.jar.Value}
}

func body(t testing.TB, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTokenCookie: without the cookie nothing but the static assets
// answers; a wrong token is refused; the right one becomes an HttpOnly
// SameSite=Strict cookie and a redirect that drops it from the URL; the
// page then comes with its security headers.
func TestTokenCookie(t *testing.T) {
	r := startRig(t, shortDir(t))
	for _, p := range []string{"/", "/events"} {
		if res := r.do("GET", p, nil, ""); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("GET %s without the cookie: %s, want 401", p, res.Status)
		}
	}
	if res := r.do("GET", "/?token=nottheone", nil, ""); res.StatusCode != http.StatusForbidden || res.Header.Get("Set-Cookie") != "" {
		t.Fatalf("a wrong token: %s %q, want 403 and no cookie", res.Status, res.Header.Get("Set-Cookie"))
	}
	if res := r.do("GET", "/", map[string]string{"Cookie": CookieName + "=guess"}, ""); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a forged cookie: %s, want 401", res.Status)
	}
	r.signIn()
	res := r.do("GET", "/", r.cookieHdr(), "")
	page := body(t, res)
	if res.StatusCode != 200 || !strings.Contains(page, `<script src="/app.js?v=`+assetVersion+`" defer>`) {
		t.Fatalf("signed in: %s\n%s", res.Status, page)
	}
	want := map[string]string{
		"Content-Security-Policy": csp,
		"X-Content-Type-Options":  "nosniff",
		"X-Frame-Options":         "DENY",
		"Referrer-Policy":         "no-referrer",
	}
	for k, v := range want {
		if got := res.Header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	for _, frag := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, frag) {
			t.Errorf("CSP lacks %s", frag)
		}
	}
	if strings.Contains(page, "<script>") || strings.Contains(page, " style=") || strings.Contains(page, " on") && strings.Contains(page, "onclick") {
		t.Errorf("the page has inline script or style:\n%s", page)
	}
	if res := r.do("GET", "/app.js", nil, ""); res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("app.js: %s %s", res.Status, res.Header.Get("Content-Type"))
	}
}

// TestForeignHost: a Host that is not this server's (DNS rebinding: a
// name of the attacker's resolving to 127.0.0.1) is refused on every
// path, the token exchange included.
func TestForeignHost(t *testing.T) {
	r := startRig(t, shortDir(t))
	r.signIn()
	_, port, _ := strings.Cut(r.s.Addr().String(), ":")
	u, _ := url.Parse(r.s.URL())
	for _, h := range []string{"evil.example:" + port, "evil.example", "127.0.0.1:1", "localhost.evil.example:" + port, "0.0.0.0:" + port, "[::]:" + port} {
		for _, p := range []string{"/", "/?" + u.RawQuery, "/events", "/app.js"} {
			hdr := r.cookieHdr()
			hdr["Host"] = h
			if res := r.do("GET", p, hdr, ""); res.StatusCode != http.StatusMisdirectedRequest {
				t.Fatalf("GET %s with Host %s: %s, want 421", p, h, res.Status)
			}
		}
	}
	for _, h := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port} {
		hdr := r.cookieHdr()
		hdr["Host"] = h
		if res := r.do("GET", "/", hdr, ""); res.StatusCode != 200 {
			t.Fatalf("GET / with Host %s: %s, want 200", h, res.Status)
		}
	}
}

// TestCrossOriginPost: an action needs the cookie, this page's Origin,
// the CSRF header and JSON; each missing piece is refused before any
// supervisor is called, naming what is wrong.
func TestCrossOriginPost(t *testing.T) {
	dir := shortDir(t)
	sup := ipctest.Serve(t, dir, ipc.State{SessionID: "aaaaaaaaaaaa", Name: "alpha", WaitingSince: 5})
	skipped := make(chan struct{}, 4)
	sup.Server.Handle(ipc.MethodSkip, func(context.Context, *ipc.Request) (any, error) {
		skipped <- struct{}{}
		return ipc.SkipResult{SkipUntil: 1}, nil
	})
	r := startRig(t, dir)
	r.signIn()
	id := r.waitRow("alpha").ID
	origin := r.base
	good := func() map[string]string {
		h := r.cookieHdr()
		h["Origin"], h[CSRFHeader], h["Content-Type"] = origin, r.s.csrf, "application/json"
		return h
	}
	payload := `{"id":"` + id + `"}`
	cases := []struct {
		name   string
		edit   func(map[string]string)
		status int
		says   string
	}{
		{"no cookie", func(h map[string]string) { delete(h, "Cookie") }, 401, "not signed in"},
		{"another origin", func(h map[string]string) { h["Origin"] = "http://evil.example" }, 403, "not this page's"},
		{"a null origin", func(h map[string]string) { h["Origin"] = "null" }, 403, "not this page's"},
		{"no origin", func(h map[string]string) { delete(h, "Origin") }, 403, "no Origin"},
		{"cross-site fetch", func(h map[string]string) { h["Sec-Fetch-Site"] = "cross-site" }, 403, "same-origin"},
		{"no csrf", func(h map[string]string) { delete(h, CSRFHeader) }, 403, CSRFHeader},
		{"wrong csrf", func(h map[string]string) { h[CSRFHeader] = "x" }, 403, CSRFHeader},
		{"a form post", func(h map[string]string) { h["Content-Type"] = "application/x-www-form-urlencoded" }, 415, "application/json"},
	}
	for _, c := range cases {
		h := good()
		c.edit(h)
		res := r.do("POST", "/api/skip", h, payload)
		b := body(t, res)
		if res.StatusCode != c.status || !strings.Contains(b, c.says) {
			t.Fatalf("%s: %s %s, want %d saying %q", c.name, res.Status, b, c.status, c.says)
		}
	}
	select {
	case <-skipped:
		t.Fatal("a refused request reached the supervisor")
	default:
	}
	if res := r.do("GET", "/api/skip", good(), ""); res.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET of an action: %s, want 405", res.Status)
	}
	res := r.do("POST", "/api/skip", good(), `{"id":"nope"}`)
	if b := body(t, res); res.StatusCode != 404 || !strings.Contains(b, "TARGET_NOT_FOUND") {
		t.Fatalf("unknown row: %s %s", res.Status, b)
	}
	res = r.do("POST", "/api/skip", good(), `{"id":"`+id+`","color":"red"}`)
	if b := body(t, res); res.StatusCode != 400 || !strings.Contains(b, "color") {
		t.Fatalf("unknown key: %s %s", res.Status, b)
	}
	for _, tail := range []string{`{"id":"x"}`, `garbage`, `}`} {
		res = r.do("POST", "/api/skip", good(), payload+tail)
		if b := body(t, res); res.StatusCode != 400 || !strings.Contains(b, "trailing data after the JSON object") {
			t.Fatalf("a body going on with %q: %s %s, want 400 naming the trailing data", tail, res.Status, b)
		}
	}
	res = r.do("POST", "/api/skip", good(), payload)
	if b := body(t, res); res.StatusCode != 200 || !strings.Contains(b, `"ok":true`) {
		t.Fatalf("the page's own skip: %s %s", res.Status, b)
	}
	select {
	case <-skipped:
	case <-time.After(5 * time.Second):
		t.Fatal("the skip did not reach the supervisor")
	}
}

// waitRow waits until the hub shows the session called name.
func (r *rig) waitRow(name string) Row {
	r.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r.s.hub.mu.Lock()
		for _, row := range r.s.hub.rows {
			if row.Name == name {
				out := *row
				r.s.hub.mu.Unlock()
				return out
			}
		}
		r.s.hub.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	r.t.Fatalf("no row %s", name)
	return Row{}
}

// TestListenRules: other hosts' addresses need --allow-remote, which needs
// TLS; each error names the flag and the valid choices.
func TestListenRules(t *testing.T) {
	f := &broker.Fleet{RuntimeDir: shortDir(t)}
	cases := []struct {
		cfg  Config
		says []string
	}{
		{Config{Listen: "0.0.0.0:0"}, []string{"--allow-remote", "127.0.0.1:PORT", "ssh -L"}},
		{Config{Listen: ":0"}, []string{"--allow-remote"}},
		{Config{Listen: "0.0.0.0:0", AllowRemote: true}, []string{"--allow-remote needs --tls-cert FILE and --tls-key FILE"}},
		{Config{Listen: "127.0.0.1:0", TLSCert: "c.pem"}, []string{"--tls-cert and --tls-key go together"}},
		{Config{Listen: "nonsense"}, []string{`"nonsense" is not HOST:PORT`, "127.0.0.1:PORT"}},
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	cases = append(cases, struct {
		cfg  Config
		says []string
	}{Config{Listen: busy.Addr().String()}, []string{"in use", "another sup web may be running", "--listen 127.0.0.1:0 picks a free port"}})
	for _, c := range cases {
		c.cfg.Fleet, c.cfg.Log = f, quietLog()
		s, err := New(c.cfg)
		if err == nil {
			s.ln.Close()
			t.Fatalf("%+v: no error", c.cfg)
		}
		for _, w := range c.says {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: %v; want it to say %q", c.cfg, err, w)
			}
		}
	}
}

// TestEventsStream: the page's stream starts with the snapshot and
// carries a supervisor's change as a session event, from its event
// stream (no polling).
func TestEventsStream(t *testing.T) {
	dir := shortDir(t)
	sup := ipctest.Serve(t, dir, ipc.State{SessionID: "aaaaaaaaaaaa", Name: "alpha", Activity: "busy"})
	r := startRig(t, dir)
	r.signIn()
	r.waitRow("alpha")
	res := r.do("GET", "/events", r.cookieHdr(), "")
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("events: %s %q", res.Status, ct)
	}
	events := make(chan message, 16)
	go func() {
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m message
				if json.Unmarshal([]byte(d), &m) == nil {
					events <- m
				}
			}
		}
		close(events)
	}()
	next := func() message {
		select {
		case m, ok := <-events:
			if !ok {
				t.Fatal("stream ended")
			}
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no event")
		}
		return message{}
	}
	if m := next(); m.Type != "snapshot" || len(m.Rows) != 1 || m.Rows[0].Name != "alpha" || m.Rows[0].Activity != "busy" {
		t.Fatalf("first event %+v, want the snapshot with alpha", m)
	}
	st := sup.State()
	st.Activity, st.Summary, st.WaitingSince = "ready", "<b>done</b>", 7
	sup.Set(st)
	for {
		m := next()
		if m.Type == "session" && m.Row.Activity == "ready" {
			if m.Row.Summary != "<b>done</b>" || m.Row.WaitingSince != 7 {
				t.Fatalf("update %+v", m.Row)
			}
			break
		}
	}
	if n := r.s.hub.Pages(); n != 1 {
		t.Fatalf("%d pages open, want 1", n)
	}
}

// lockedBuffer is a log sink tests read while the server writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestTLS: with a certificate, the page is https, its cookie Secure, and
// it answers to the names the certificate holds besides loopback; every
// interface's address (0.0.0.0) is never a Host it answers to.
func TestTLS(t *testing.T) {
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sup.test"},
		DNSNames: []string{"sup.test"}, IPAddresses: []net.IP{net.ParseIP("100.64.0.7")},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)

	f := &broker.Fleet{RuntimeDir: shortDir(t), Timeout: time.Second, Deadline: time.Second}
	logs := &lockedBuffer{}
	s, err := New(Config{Listen: "0.0.0.0:0", AllowRemote: true, TLSCert: certFile, TLSKey: keyFile, Fleet: f, Local: true,
		Log: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	if !strings.HasPrefix(s.URL(), "https://127.0.0.1:") {
		t.Fatalf("URL %s, want https on loopback", s.URL())
	}
	_, port, _ := net.SplitHostPort(s.Addr().String())
	c := &http.Client{Timeout: 10 * time.Second,
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(host, path string) *http.Response {
		req, _ := http.NewRequest("GET", "https://127.0.0.1:"+port+path, nil)
		req.Host = host
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	u, _ := url.Parse(s.URL())
	for _, h := range []string{"sup.test:" + port, "100.64.0.7:" + port, "127.0.0.1:" + port} {
		res := get(h, "/?"+u.RawQuery)
		if res.StatusCode != http.StatusSeeOther || len(res.Cookies()) != 1 || !res.Cookies()[0].Secure {
			t.Fatalf("Host %s: %s, cookies %v; want 303 and a Secure cookie", h, res.Status, res.Cookies())
		}
	}
	for _, h := range []string{"0.0.0.0:" + port, "evil.test:" + port, "sup.test:1"} {
		if res := get(h, "/app.js"); res.StatusCode != http.StatusMisdirectedRequest {
			t.Fatalf("Host %s: %s, want 421", h, res.Status)
		}
	}
	// Plain http on the TLS port gets nothing useful.
	start := time.Now()
	if res, err := http.Get("http://127.0.0.1:" + port + "/"); err == nil && res.StatusCode == 200 {
		t.Fatal("plain http served the page")
	}
	// Connections that end before their handshake (a refused peer's, a
	// scanner's) are logged at most once a second, counted.
	for range 30 {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("not tls\r\n\r\n")) // Best effort: the server may close first.
		c.Close()
	}
	testutil.WaitUntil(t, 10*time.Second, "a handshake error logged", func() bool {
		return strings.Contains(logs.String(), "TLS handshake error")
	})
	time.Sleep(200 * time.Millisecond) // the rest of the 31, if any were to be logged
	if n, most := strings.Count(logs.String(), "TLS handshake error"), int(time.Since(start)/time.Second)+1; n > most {
		t.Fatalf("31 failed handshakes in %s made %d log lines, want at most one a second:\n%s", time.Since(start), n, logs.String())
	}
}
