package proc

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// BecomeSubreaper makes this process the child subreaper of everything it
// starts (prctl PR_SET_CHILD_SUBREAPER): a process that leaves its
// parent, its process group and its session (a double fork, setsid) is
// still this process's descendant once its parent exits, instead of
// init's, so EndDescendants finds it. Call it once, before starting
// children.
func BecomeSubreaper() error {
	const prSetChildSubreaper = 36
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER, 1): %w", errno)
	}
	return nil
}

// Descendant is a process EndDescendants ended.
type Descendant struct {
	PID int
	// Name is the command name the kernel keeps (/proc/<pid>/comm).
	Name string
	// OwnSession is set when the process had left benchgate's session
	// (setsid); otherwise it had left the process group of the command
	// benchgate started (setpgid). Either way the group kill of that
	// command could not reach it.
	OwnSession bool
}

// String names the process and how it got away, for messages:
// "4711 (sleep, in a session of its own)".
func (d Descendant) String() string {
	how := "in a process group of its own"
	if d.OwnSession {
		how = "in a session of its own"
	}
	return fmt.Sprintf("%d (%s, %s)", d.PID, d.Name, how)
}

// maxSweeps bounds EndDescendants' rounds: a process forking while it is
// being ended gets its children found in the next round.
const maxSweeps = 50

// isSubreaper reports whether BecomeSubreaper was called in this process.
func isSubreaper() bool {
	const prGetChildSubreaper = 37
	var v int32
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prGetChildSubreaper, uintptr(unsafe.Pointer(&v)), 0)
	return errno == 0 && v != 0
}

// EndDescendants sends SIGKILL to every running descendant of this
// process and reaps those that became its own children, round after round
// until none is left, and returns them. Children started by Run are
// descendants too: call it only when none of them should still be running
// (after an attempt's commands exited, before exiting). Together with
// BecomeSubreaper it reaches the processes that left their group or
// session, which the group kill of Run does not. In a process that is not
// a subreaper (a test binary that runs a set in-process) it does nothing:
// there, the children of other work are descendants too.
func EndDescendants() ([]Descendant, error) {
	if !isSubreaper() {
		return nil, nil
	}
	self := os.Getpid()
	seen := map[int]bool{}
	var ended []Descendant
	for range maxSweeps {
		procs, err := processTable()
		if err != nil {
			return ended, err
		}
		sid := 0
		for _, p := range procs {
			if p.pid == self {
				sid = p.sid
			}
		}
		found := false
		for _, p := range descendantsOf(self, procs) {
			if p.state == 'Z' {
				// A zombie that is ours (reparented, or exited after its
				// parent was killed) is reaped; it runs no more.
				if p.ppid == self {
					var ws syscall.WaitStatus
					_, _ = syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
				}
				continue
			}
			found = true
			if syscall.Kill(p.pid, syscall.SIGKILL) == nil && !seen[p.pid] {
				seen[p.pid] = true
				ended = append(ended, Descendant{PID: p.pid, Name: p.name, OwnSession: p.sid != sid})
			}
		}
		if !found {
			return ended, nil
		}
	}
	return ended, fmt.Errorf("descendants still running after %d rounds of SIGKILL", maxSweeps)
}

// procInfo is what EndDescendants reads of one process.
type procInfo struct {
	pid, ppid, pgid, sid int
	state                byte
	name                 string
}

// processTable reads every process's parent, group, session and state
// from /proc.
func processTable() ([]procInfo, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	var out []procInfo
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone
		}
		// The command name (field 2) is in parentheses and may hold
		// spaces and parentheses.
		open, closing := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || closing < open {
			continue
		}
		fields := strings.Fields(string(b[closing+1:]))
		// fields[0] is field 3 (state); 4 is ppid, 5 pgrp, 6 session.
		if len(fields) < 4 || len(fields[0]) == 0 {
			continue
		}
		p := procInfo{pid: pid, state: fields[0][0], name: string(b[open+1 : closing])}
		p.ppid, _ = strconv.Atoi(fields[1])
		p.pgid, _ = strconv.Atoi(fields[2])
		p.sid, _ = strconv.Atoi(fields[3])
		out = append(out, p)
	}
	return out, nil
}

// descendantsOf returns the processes below root in procs, parents before
// their children.
func descendantsOf(root int, procs []procInfo) []procInfo {
	children := map[int][]procInfo{}
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p)
	}
	var out []procInfo
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
	}
	return out
}

// reapGroup waits, in the background, for the members of process group
// pgid that became this process's children when their parent died: as
// the subreaper it must, or each would stay a zombie until the next
// EndDescendants, and a long batch of killed commands would pile them
// up. Outside a subreaper nothing becomes its child this way.
func reapGroup(pgid int) {
	if !isSubreaper() {
		return
	}
	procs, err := processTable()
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, p := range procs {
		if p.ppid == self && p.pgid == pgid {
			go func(pid int) {
				var ws syscall.WaitStatus
				_, _ = syscall.Wait4(pid, &ws, 0, nil)
			}(p.pid)
		}
	}
}
