//go:build linux

package broker

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// exitWith is a real *exec.ExitError with status code.
func exitWith(t *testing.T, code int) error {
	t.Helper()
	err := exec.Command("sh", "-c", fmt.Sprintf("exit %d", code)).Run()
	if err == nil {
		t.Fatal("sh exit: no error")
	}
	return err
}

// Why a host did not answer, from ssh's exit and stderr.
func TestClassifyHostFailure(t *testing.T) {
	for _, tt := range []struct {
		code         int
		stderr, want string
	}{
		{255, "me@gpu: Permission denied (publickey).", HostAuthFailed},
		{255, "Host key verification failed.", HostAuthFailed},
		{255, "ssh: connect to host gpu port 22: Connection refused", HostUnreachable},
		{255, "ssh: Could not resolve hostname gpu: Name or service not known", HostUnreachable},
		{127, "sh: 1: /opt/sup: not found", HostSupMissing},
		{3, "No help topic for 'relay'", HostVersionMismatch},
		{1, "", HostVersionMismatch},
	} {
		e := classify("gpu", exitWith(t, tt.code), tt.stderr, nil)
		if e.Status != tt.want || e.Host != "gpu" {
			t.Errorf("exit %d %q: %+v, want %s", tt.code, tt.stderr, e, tt.want)
		}
		if tt.stderr != "" && !strings.Contains(e.Reason, tt.stderr) {
			t.Errorf("exit %d: reason %q does not carry ssh's words %q", tt.code, e.Reason, tt.stderr)
		}
	}
}
