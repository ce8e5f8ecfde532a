package lighthouse

import "syscall"

// workerAttr puts the worker in a process group of its own, which Close
// kills whole, and has the kernel kill it if this process dies first.
func workerAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
