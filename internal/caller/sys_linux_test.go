package caller

import "syscall"

func setsid() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
