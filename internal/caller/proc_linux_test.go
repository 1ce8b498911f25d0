package caller

import (
	"os"
	"os/exec"
	"testing"
)

// TestProcFSSelf decides for this test process and a child of it: no sup
// encloses them (the test binary is not named sup) unless this process
// says it is a supervisor.
func TestProcFSSelf(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = setsid()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	v, err := Decide(ProcFS{}, os.Getpid(), SelfConfig(0))
	if err != nil || v.Kind != Operator || v.Chain[0].PID != os.Getpid() {
		t.Fatalf("self: %s %s %v", v.Kind, v, err)
	}
	v, err = Decide(ProcFS{}, cmd.Process.Pid, SelfConfig(os.Getpid()))
	if err != nil || v.Kind != Agent || v.Supervisors[0].PID != os.Getpid() || v.Exe == "" {
		t.Fatalf("child in its own session under a supervisor: %s %s %+v %v", v.Kind, v, v.Supervisors, err)
	}
	if _, err := Decide(ProcFS{}, 1<<30, SelfConfig(0)); err == nil {
		t.Fatal("a pid that does not exist was decided")
	}
}
