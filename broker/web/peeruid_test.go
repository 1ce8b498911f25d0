//go:build linux

package web

import (
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

func TestProcAddr(t *testing.T) {
	if got := procAddr(&net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 8080}); got != "0100007F:1F90" {
		t.Errorf("127.0.0.1:8080 → %s", got)
	}
	if got := procAddr6(&net.TCPAddr{IP: net.ParseIP("::1"), Port: 80}); got != "00000000000000000000000001000000:0050" {
		t.Errorf("[::1]:80 → %s", got)
	}
	if got := procAddr6(&net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 80}); got != "0000000000000000FFFF00000100007F:0050" {
		t.Errorf("::ffff:127.0.0.1:80 → %s", got)
	}
}

// TestOtherUIDRefused: another user of this host connecting to the
// loopback port gets the connection closed unread (not even the public
// assets), whatever it sends; our own uid is served.
func TestOtherUIDRefused(t *testing.T) {
	setpriv := testutil.Setpriv(t)
	py := "/usr/bin/python3" // Debian's: one under /root (pyenv) is not for uid 65534
	testutil.File(t, py, "apt-get install -y python3")
	r := startRig(t, shortDir(t))
	if res := r.do("GET", "/app.js", nil, ""); res.StatusCode != 200 {
		t.Fatalf("our own uid: %s", res.Status)
	}
	script := `import sys, urllib.request
try:
    print(urllib.request.urlopen(sys.argv[1], timeout=10).status)
except Exception as e:
    print("refused:", e)
`
	out, err := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", py, "-c", script, r.base+"/app.js").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.HasPrefix(string(out), "refused:") {
		t.Fatalf("uid 65534 got %q, want the connection refused", out)
	}
	if log := r.log.String(); !strings.Contains(log, "the client runs as uid 65534; sup web serves only uid "+itoa(os.Getuid())) {
		t.Fatalf("the log does not say why:\n%s", log)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
