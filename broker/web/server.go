//go:build linux

package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/internal/caller"
	"github.com/sup-tmux/sup/ipc"
)

// DefaultListen is where `sup web` listens without --listen.
const DefaultListen = "127.0.0.1:7717"

// MaxPages bounds the open pages (event streams) of one server.
const MaxPages = 100

// CookieName is the session cookie the token is exchanged for.
const CookieName = "sup_web"

// CSRFHeader carries the page's CSRF token on every POST.
const CSRFHeader = "X-Sup-CSRF"

//go:embed assets
var assets embed.FS

// Config is one `sup web`.
type Config struct {
	Listen      string // HOST:PORT; "" is DefaultListen
	AllowRemote bool   // listen on an address other hosts reach (needs TLS)
	TLSCert     string // PEM certificate file (with TLSKey: serve https)
	TLSKey      string
	Fleet       *broker.Fleet
	Fanout      broker.Fanout // the hosts to follow
	Local       bool          // follow this host's supervisors
	// TmuxSocket and TmuxClient say whose tmux client a jump moves
	// (broker.CallerTmux): "" socket means sup web does not run beside a
	// terminal, and the page offers no jump.
	TmuxSocket string
	TmuxClient string
	Log        *slog.Logger
	Now        func() time.Time
}

// Server is a listening `sup web`.
type Server struct {
	cfg    Config
	ln     net.Listener
	hub    *Hub
	token  string // printed once in the URL
	cookie string // the session cookie's value
	csrf   string
	hosts  map[string]bool // the Host values accepted (lower case, with port)
	port   string
	tls    bool
	index  *template.Template

	uid        int                // the only uid served on loopback
	ident      *caller.Identifier // names an agent's session for a refusal
	refusals   *refusalLog
	handshakes *refusalLog // net/http's TLS handshake errors
}

// ListenError is a bad --listen/--allow-remote/--tls-* combination.
type ListenError struct{ msg string }

func (e *ListenError) Error() string { return e.msg }

func listenErr(format string, args ...any) error {
	return &ListenError{msg: "web: " + fmt.Sprintf(format, args...)}
}

// New checks cfg, binds its address and makes the secrets. Nothing is
// served until Run.
func New(cfg Config) (*Server, error) {
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Fleet == nil {
		return nil, errors.New("web: no fleet")
	}
	host, port, err := net.SplitHostPort(cfg.Listen)
	if err != nil || port == "" {
		return nil, listenErr("--listen %q is not HOST:PORT; valid: 127.0.0.1:PORT, [::1]:PORT, localhost:PORT (PORT 0 picks a free one)", cfg.Listen)
	}
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return nil, listenErr("--tls-cert and --tls-key go together; got only %s", map[bool]string{true: "--tls-cert", false: "--tls-key"}[cfg.TLSCert != ""])
	}
	loop := loopbackHost(host)
	if !loop && !cfg.AllowRemote {
		return nil, listenErr("--listen %s is reachable from other hosts; valid without --allow-remote: 127.0.0.1:PORT, [::1]:PORT, localhost:PORT. To reach sup web from a phone use an SSH tunnel (ssh -L) or --allow-remote with --tls-cert and --tls-key", cfg.Listen)
	}
	if cfg.AllowRemote && cfg.TLSCert == "" {
		return nil, listenErr("--allow-remote needs --tls-cert FILE and --tls-key FILE: the session cookie and every answer must not cross a network in clear text")
	}
	s := &Server{cfg: cfg, hosts: map[string]bool{}}
	for _, p := range []*string{&s.token, &s.cookie, &s.csrf} {
		if *p, err = secret(); err != nil {
			return nil, err
		}
	}
	var tlsCfg *tls.Config
	var certNames []string
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return nil, listenErr("--tls-cert %s / --tls-key %s: %v", cfg.TLSCert, cfg.TLSKey, err)
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		s.tls = true
		if leaf, err := x509.ParseCertificate(cert.Certificate[0]); err == nil {
			// With --allow-remote the names the certificate holds are
			// the names this server answers to (its Host check).
			certNames = append(certNames, leaf.DNSNames...)
			for _, ip := range leaf.IPAddresses {
				certNames = append(certNames, ip.String())
			}
		}
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, listenErr("--listen %s: the port is in use: another sup web may be running (its URL is in the pane that started it); --listen %s picks a free port",
			cfg.Listen, net.JoinHostPort(host, "0"))
	}
	if err != nil {
		return nil, listenErr("--listen %s: %v", cfg.Listen, err)
	}
	_, s.port, _ = net.SplitHostPort(ln.Addr().String())
	for _, n := range append([]string{"localhost", "127.0.0.1", "::1"}, certNames...) {
		s.allowHostName(n) // with the bound port, known now
	}
	// The listen host answers as a Host too, unless it is every
	// interface (allowHostName): a browser sends Host 0.0.0.0 for a page of
	// any site that reaches http://0.0.0.0:PORT, which Linux routes here.
	s.allowHostName(host)
	s.uid = os.Getuid()
	s.ident = &caller.Identifier{RuntimeDir: cfg.Fleet.RuntimeDir}
	s.refusals = &refusalLog{log: cfg.Log, now: cfg.Now, interval: time.Second}
	s.handshakes = &refusalLog{log: cfg.Log, now: cfg.Now, interval: time.Second}
	ln = &ownerListener{Listener: ln, check: s.checkPeer}
	if tlsCfg != nil {
		ln = tls.NewListener(ln, tlsCfg)
	}
	s.ln = ln
	s.index = template.Must(template.ParseFS(assets, "assets/index.html"))
	s.hub = newHub(cfg.Now, cfg.Log, s.readScreen)
	return s, nil
}

func (s *Server) allowHostName(name string) {
	name = strings.ToLower(strings.Trim(name, "[]"))
	if ip := net.ParseIP(name); name == "" || strings.Contains(name, "*") || ip != nil && ip.IsUnspecified() {
		return // every interface, or a wildcard: never a Host of ours
	}
	s.hosts[net.JoinHostPort(name, s.port)] = true
}

func secret() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("web: random token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// assetVersion is a hash of the embedded assets, for their URLs.
var assetVersion = func() string {
	h := sha256.New()
	_ = fs.WalkDir(assets, "assets", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := assets.ReadFile(p) // Best effort: embedded, always there.
			h.Write([]byte(p))
			h.Write(b)
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)[:6])
}()

// loopbackHost reports whether host names only this host.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// URL is the address to open, with the token: printed once.
func (s *Server) URL() string {
	scheme := "http"
	if s.tls {
		scheme = "https"
	}
	host, _, _ := net.SplitHostPort(s.cfg.Listen)
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return scheme + "://" + net.JoinHostPort(strings.Trim(host, "[]"), s.port) + "/?token=" + s.token
}

// Addr is the bound address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Hub is the server's follower of the supervisors.
func (s *Server) Hub() *Hub { return s.hub }

// Run follows the supervisors and serves until ctx ends.
func (s *Server) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.hub.mu.Lock()
	s.hub.ctx = ctx
	s.hub.mu.Unlock()
	done := make(chan struct{})
	var watchers int
	if s.cfg.Local {
		watchers++
		go func() {
			defer func() { done <- struct{}{} }()
			// Best effort: Watch only fails when ctx ends.
			_ = broker.Watch(ctx, s.cfg.Fleet.RuntimeDir, s.hub.apply)
		}()
	}
	for _, h := range s.cfg.Fanout.Hosts {
		watchers++
		go func() {
			defer func() { done <- struct{}{} }()
			s.cfg.Fanout.SSH.WatchHost(ctx, h, s.cfg.Fanout.Deadline, s.hub.apply)
		}()
	}
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          log.New(httpErrorLog{s}, "", 0),
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ConnContext:       withConn,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(s.ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	cancel()
	sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer scancel()
	_ = srv.Shutdown(sctx) // Best effort: event streams end with ctx.
	for ; watchers > 0; watchers-- {
		<-done
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("web: serve %s: %w", s.cfg.Listen, err)
	}
	return nil
}

// httpErrorLog is net/http's error log: its TLS handshake errors, one per
// connection that goes before its handshake (a refused peer's, a port
// scanner's), share the refusals' rate limit; the rest are warnings.
type httpErrorLog struct{ s *Server }

func (l httpErrorLog) Write(p []byte) (int, error) {
	msg := strings.TrimSpace(string(p))
	if strings.Contains(msg, "TLS handshake error") {
		l.s.handshakes.warn("web: " + msg)
	} else {
		l.s.cfg.Log.Warn(msg)
	}
	return len(p), nil
}

// readScreen asks a session's supervisor for its screen as text.
func (s *Server) readScreen(ctx context.Context, l broker.Listing) (ipc.ScreenResult, error) {
	var res ipc.ScreenResult
	err := s.cfg.Fleet.Call(ctx, l, ipc.MethodScreen, ipc.ScreenParams{Format: "text"}, &res)
	return res, err
}

// Handler is the server's routes behind its checks.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	files := http.FileServer(http.FS(static))
	// The assets hold no secret and change only with the binary: the page
	// names them with the binary's asset hash (?v=), so a browser may keep
	// them (a phone's second visit loads only the page and the stream).
	cached := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("v") == assetVersion {
			w.Header().Set("Cache-Control", "private, max-age=31536000, immutable")
		}
		files.ServeHTTP(w, r)
	})
	for _, f := range []string{"/app.js", "/app.css", "/manifest.webmanifest", "/icon.svg"} {
		mux.Handle("GET "+f, cached)
	}
	mux.HandleFunc("GET /{$}", s.serveIndex)
	mux.HandleFunc("GET /events", s.authed(s.serveEvents))
	mux.HandleFunc("GET /api/screen", s.authed(s.serveScreen))
	mux.HandleFunc("POST /api/answer", s.action(s.answer))
	mux.HandleFunc("POST /api/trigger", s.action(s.trigger))
	mux.HandleFunc("POST /api/skip", s.action(s.skip))
	mux.HandleFunc("POST /api/jump", s.action(s.jump))
	return s.headers(mux)
}

const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// headers sets the security headers on every answer and refuses a Host
// that is not this server's (DNS rebinding).
func (s *Server) headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		if msg := refusedBy(r); msg != "" {
			http.Error(w, msg, http.StatusForbidden)
			return
		}
		if !s.hostOK(r.Host) {
			s.cfg.Log.Warn("web: refused a foreign Host", "host", r.Host, "client", r.RemoteAddr)
			http.Error(w, fmt.Sprintf("Host %q is not this server's; open %s://127.0.0.1:%s/ (or a name its certificate holds)",
				r.Host, s.scheme(), s.port), http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) scheme() string {
	if s.tls {
		return "https"
	}
	return "http"
}

func (s *Server) hostOK(host string) bool {
	h, p, err := net.SplitHostPort(host)
	if err != nil {
		// No port: only for the scheme's default port.
		h, p = host, map[bool]string{true: "443", false: "80"}[s.tls]
	}
	return s.hosts[net.JoinHostPort(strings.ToLower(strings.Trim(h, "[]")), p)]
}

// hasCookie reports whether r carries the session cookie.
func (s *Server) hasCookie(r *http.Request) bool {
	c, err := r.Cookie(CookieName)
	return err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(s.cookie)) == 1
}

func (s *Server) authed(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.hasCookie(r) {
			http.Error(w, "not signed in: open the URL sup web printed (it ends in ?token=…)", http.StatusUnauthorized)
			return
		}
		next(w, r)
	}
}

// serveIndex exchanges a token for the cookie (then redirects to drop the
// token from the URL) and serves the page to a signed-in browser.
func (s *Server) serveIndex(w http.ResponseWriter, r *http.Request) {
	if tok, ok := r.URL.Query()["token"]; ok {
		if len(tok) != 1 || subtle.ConstantTimeCompare([]byte(tok[0]), []byte(s.token)) != 1 {
			s.cfg.Log.Warn("web: refused a wrong token", "client", r.RemoteAddr)
			http.Error(w, "this token is not this server's: open the URL the running sup web printed", http.StatusForbidden)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: CookieName, Value: s.cookie, Path: "/", HttpOnly: true,
			SameSite: http.SameSiteStrictMode, Secure: s.tls})
		s.cfg.Log.Info("web: signed in", "client", r.RemoteAddr)
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if !s.hasCookie(r) {
		http.Error(w, "not signed in: open the URL sup web printed (it ends in ?token=…)", http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	data := struct {
		CSRF, V string
		Jump    bool
	}{s.csrf, assetVersion, s.cfg.TmuxSocket != ""}
	if err := s.index.Execute(w, data); err != nil {
		s.cfg.Log.Warn("web: index", "err", err)
	}
}

// serveEvents is the page's event stream: the snapshot, then every
// change, until the page goes or falls behind.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	p, first, ok := s.hub.join(MaxPages)
	if !ok {
		http.Error(w, "too many open pages ("+strconv.Itoa(MaxPages)+"); close one", http.StatusServiceUnavailable)
		return
	}
	defer s.hub.leave(p)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	rc := http.NewResponseController(w)
	write := func(b []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(10 * time.Second)) // Best effort: a stuck page is dropped by its queue.
		if _, err := w.Write(b); err != nil {
			return false
		}
		fl.Flush()
		return true
	}
	if !write([]byte("retry: 1000\n\n")) || !write(first) {
		return
	}
	// A comment now and then finds a page whose connection died quietly.
	ping := time.NewTicker(25 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-p.dropped:
			return
		case b := <-p.ch:
			if !write(b) {
				return
			}
		case <-ping.C:
			if !write([]byte(": ping\n\n")) {
				return
			}
		}
	}
}

// serveScreen is a row's screen preview: {text, cols, seq}.
func (s *Server) serveScreen(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	text, cols, seq, ok := s.hub.screenOf(id)
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(actionReply{Code: string(ipc.CodeTargetNotFound), Message: fmt.Sprintf("no session %q here any more", id)})
		return
	}
	_ = json.NewEncoder(w).Encode(struct { // Best effort: the page may be gone.
		Text string `json:"text"`
		Cols int    `json:"cols"`
		Seq  int    `json:"seq"`
	}{text, cols, seq})
}

// clientAddr is the browser's address as the audit names it.
func clientAddr(r *http.Request) string {
	if len(r.RemoteAddr) > ipc.MaxViaClient {
		return r.RemoteAddr[:ipc.MaxViaClient]
	}
	return r.RemoteAddr
}
