// Package procs reads the process table from /proc, for the tests and
// benchmarks that look at what a browser started and left behind.
package procs

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Proc is one process as /proc/<pid>/stat shows it.
type Proc struct {
	PID, PPID, PGID int
	// State is the one-letter state; "Z" is a zombie.
	State string
}

// List returns every process /proc shows; those that vanish while it
// reads are left out.
func List() []Proc {
	entries, _ := os.ReadDir("/proc")
	var out []Proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and
		// parentheses, so cut at the last ')'.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		pgid, _ := strconv.Atoi(fields[2])
		out = append(out, Proc{PID: pid, PPID: ppid, PGID: pgid, State: fields[0]})
	}
	return out
}

// ChildrenOf returns the PIDs of parent's child processes, zombies
// included.
func ChildrenOf(parent int) []int {
	var out []int
	for _, p := range List() {
		if p.PPID == parent {
			out = append(out, p.PID)
		}
	}
	return out
}

// Descendants returns the PIDs of every process below pid, zombies
// included.
func Descendants(pid int) []int {
	children := map[int][]int{}
	for _, p := range List() {
		children[p.PPID] = append(children[p.PPID], p.PID)
	}
	var out []int
	for queue := children[pid]; len(queue) > 0; queue = queue[1:] {
		out = append(out, queue[0])
		queue = append(queue, children[queue[0]]...)
	}
	return out
}

// Cmdline returns pid's command line, its arguments joined by spaces;
// "" when the process is gone.
func Cmdline(pid int) string {
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	return strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
}
