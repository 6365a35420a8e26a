package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// OwnerEnv is the variable every child started by Run carries: the pid
// and start time of the benchgate process that started it. Descendants
// inherit it, so when benchgate is killed with SIGKILL (and can stop
// nothing), a later run can still find what it left behind and stop it:
// see ReapOrphans.
const OwnerEnv = "BENCHGATE_OWNER"

// ownerID names a process across pid reuse: its pid and its start time
// in clock ticks since boot (field 22 of /proc/<pid>/stat).
func ownerID(pid int) (string, bool) {
	start, ok := startTime(pid)
	if !ok {
		return "", false
	}
	return strconv.Itoa(pid) + "." + start, true
}

// selfOwner is this process's OwnerEnv value; "" where /proc is absent.
func selfOwner() string {
	id, _ := ownerID(os.Getpid())
	return id
}

// SelfOwner names this process across pid reuse ("<pid>.<start time>"),
// for labels on resources that must not outlive it (containers).
func SelfOwner() string { return selfOwner() }

// OwnerAlive reports whether the process a SelfOwner value names is
// still running on this host.
func OwnerAlive(owner string) bool { return ownerAlive(owner) }

// startTime reads a process's start time from the stat file of its main
// thread, /proc/<pid>/task/<pid>/stat, which the kernel fills as it fills
// /proc/<pid>/stat. The process's own /proc/<pid>/stat is not used: under
// qemu-user (an arm64 benchgate on an amd64 runner) the emulator answers
// a process's reads of its own stat file with a start time of its own,
// which other processes do not see, so a run would name itself with a
// value by which every other run takes it for dead (and removes its
// containers). The thread's file is the kernel's for every reader.
func startTime(pid int) (string, bool) {
	p := strconv.Itoa(pid)
	b, err := os.ReadFile(filepath.Join("/proc", p, "task", p, "stat"))
	if err != nil {
		return "", false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", false
	}
	fields := strings.Fields(string(b[i+1:]))
	// fields[0] is field 3 (state); the start time is field 22.
	if len(fields) < 20 {
		return "", false
	}
	return fields[19], true
}

// ownerAlive reports whether the process named by an OwnerEnv value is
// still the same running process.
func ownerAlive(owner string) bool {
	pidText, _, ok := strings.Cut(owner, ".")
	if !ok {
		return false
	}
	pid, err := strconv.Atoi(pidText)
	if err != nil {
		return false
	}
	id, ok := ownerID(pid)
	return ok && id == owner
}

// ReapOrphans stops every process that a benchgate process started and
// that outlived it: a benchmark, a fixture command or a test whose
// benchgate was killed with SIGKILL keeps running and writing into the
// output folder, and a new run in that folder would interleave with it.
// Each such process, and its process group, gets SIGKILL. Processes of
// benchgate processes that are still alive (another run on this host) are
// left alone. It returns what it stopped.
func ReapOrphans() ([]Orphan, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("reap: %w", err)
	}
	self := os.Getpid()
	var reaped []Orphan
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		owner := envValue(pid, OwnerEnv)
		if owner == "" || ownerAlive(owner) {
			continue
		}
		if pgid, err := syscall.Getpgid(pid); err == nil && pgid > 1 && pgid != syscall.Getpgrp() {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
		name := commName(pid)
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			reaped = append(reaped, Orphan{PID: pid, Name: name, Owner: owner})
		}
	}
	return reaped, nil
}

// Orphan is a process ReapOrphans stopped.
type Orphan struct {
	PID   int
	Name  string // the kernel's command name
	Owner string // the OwnerEnv value: the benchgate that started it
}

// String says what was found and why it was stopped: its owner is gone,
// whether it was killed (SIGKILL, a crash) or the process escaped its
// owner's last sweep.
func (o Orphan) String() string {
	pid, _, _ := strings.Cut(o.Owner, ".")
	return fmt.Sprintf("%d (%s), started by benchgate pid %s, which is no longer running", o.PID, o.Name, pid)
}

// commName is the kernel's name of a process's command; "?" when gone.
func commName(pid int) string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

// envValue reads one variable of another process's environment; "" when
// it is unset or unreadable (another user's process, a kernel thread).
func envValue(pid int, name string) string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return ""
	}
	prefix := []byte(name + "=")
	for _, kv := range bytes.Split(b, []byte{0}) {
		if bytes.HasPrefix(kv, prefix) {
			return string(kv[len(prefix):])
		}
	}
	return ""
}

// HideEnvironment makes this process non-dumpable. The kernel then lets
// only holders of CAP_SYS_PTRACE read its /proc/<pid>/environ, mem and
// fds. The environment a process started with stays in that file even
// after os.Unsetenv, so without this any child running as the same user
// (a benchmark, an agent, a model-written test) could read the job's
// tokens there. Children started with Cmd.Isolate hold no capability
// outside their own namespace, so they cannot read it even as root.
func HideEnvironment() error {
	const prSetDumpable = 4
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE, 0): %w", errno)
	}
	return nil
}

// isolate asks for a user namespace mapping only the caller's own uid and
// gid, and a network namespace with nothing but a loopback that is down.
func isolate(a *syscall.SysProcAttr) {
	uid, gid := os.Getuid(), os.Getgid()
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
}

// mapNobody adds to the namespace's mappings uid and gid 1, mapped to the
// host's nobody (65534), which the child can switch to.
func mapNobody(a *syscall.SysProcAttr) {
	a.UidMappings = append(a.UidMappings, syscall.SysProcIDMap{ContainerID: 1, HostID: 65534, Size: 1})
	a.GidMappings = append(a.GidMappings, syscall.SysProcIDMap{ContainerID: 1, HostID: 65534, Size: 1})
}

// isolationRefused reports a start failure caused by the namespaces
// (unprivileged user namespaces disabled, a seccomp or AppArmor policy).
func isolationRefused(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EACCES)
}
