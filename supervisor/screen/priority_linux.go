package screen

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// yieldCPU pins the model's goroutine to its own thread and gives that
// thread the lowest CPU priority (nice 19; Linux's nice is per thread). On a
// busy machine — an agent flooding output on two cores — the scheduler then
// serves the child and the byte pump first, and the model only lags (and
// drops, see Model) instead of slowing what the human sees. The thread is
// never returned to the runtime: the goroutine's exit ends it.
func yieldCPU() {
	runtime.LockOSThread()
	unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 19) // Best effort: only priority is lost.
}
