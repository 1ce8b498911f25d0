//go:build linux

// Package web is `sup web`: the stuck queue and every session in a
// browser, served by the broker (specs/web.md).
//
// One Hub follows every supervisor once (broker.Watch for this host,
// SSH.WatchHost for each other host) and fans their changes out to the
// open pages as server-sent events: fifty pages cost one subscription per
// supervisor, not fifty, and nothing polls a supervisor on a timer.
//
// Invariants (tested in web_test.go and the browser tests):
//
//   - Every request's Host names this server: a loopback name or IP with
//     the listen port, or (with --allow-remote) a name the TLS certificate
//     holds. A page of another name reached by DNS rebinding gets 421.
//   - A connection from this host is served only when its client socket is
//     this server's uid (sock_diag, else /proc/net/tcp): another user of
//     the host gets it closed unread, so a session cookie a browser leaked
//     to their port is worth nothing to them.
//   - A connection from this host is served only when every process
//     holding its client socket is the operator by the supervisor's rule
//     (caller.Decide): an agent's, or one whose process cannot be found,
//     gets 403 on every request and never a cookie (agent_test.go).
//   - The peer check runs on a connection's first Read, in its own
//     goroutine, never in Accept; refusals are logged at most once a
//     second, counted (peeruid_test.go, peerproc_test.go).
//   - Nothing but the token URL and the static assets answers without the
//     session cookie; the token is only ever exchanged for that cookie
//     (HttpOnly, SameSite=Strict) and dropped from the URL by a redirect.
//   - Every state-changing request is a POST of JSON whose Origin is this
//     server's own and whose X-Sup-CSRF header holds the page's CSRF token.
//   - Agent text reaches the page only as JSON string values that the
//     script puts into text nodes (textContent); no handler builds HTML
//     from it, and the Content-Security-Policy allows no inline script and
//     no other origin.
//   - Every action goes to the supervisor on a connection whose hello says
//     via web with the browser's address: the supervisor audits
//     "the operator (web, ADDR)", and refuses it NOT_ALLOWED when sup web
//     itself runs inside an agent (it is then that agent).
//   - Memory is bounded: each page's queue of pending events is capped
//     (a page that falls behind is dropped and reconnects to a fresh
//     snapshot), so are the pages (MaxPages) and the text each row
//     carries (screen, summary).
package web
