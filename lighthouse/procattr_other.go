//go:build unix && !linux

package lighthouse

import "syscall"

// workerAttr puts the worker in a process group of its own, which Close
// kills whole. Only Linux can also have the kernel kill it when this
// process dies first: elsewhere a crashed parent leaves it to its
// stdin closing.
func workerAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
