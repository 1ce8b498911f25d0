package foreground

import "golang.org/x/sys/unix"

func init() {
	calls[unix.SYS_POLL] = callInfo{"poll", pollCall}
	calls[unix.SYS_SELECT] = callInfo{"select", pollCall}
	calls[unix.SYS_EPOLL_WAIT] = callInfo{"epoll_wait", pollCall}
}
