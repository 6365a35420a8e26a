package sandbox

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Limits bound what one sandboxed test may take: a runaway test (a list
// that grows until the timeout, a fork loop, a file that fills the disk)
// is stopped by the kernel, not by the runner's memory or disk. Zero
// fields take the defaults.
type Limits struct {
	MemoryBytes int64 // address space (RLIMIT_AS); DefaultMemory
	CPUSeconds  int64 // CPU time (RLIMIT_CPU); twice the timeout, at least 10 s
	FileBytes   int64 // size of any file written (RLIMIT_FSIZE); DefaultFileSize
	Processes   int64 // processes and threads (RLIMIT_NPROC, in its own user namespace); DefaultProcesses
	// FolderBytes sizes the tmpfs the test's folder is copied to in the
	// sandbox: all it writes there, in total; DefaultFolder.
	FolderBytes int64
	// TmpBytes sizes each of the sandbox's /tmp and /dev/shm; DefaultTmp.
	TmpBytes int64
}

// Defaults of Limits.
const (
	DefaultMemory    = 2 << 30
	DefaultFileSize  = 1 << 30
	DefaultProcesses = 256
	DefaultFolder    = 512 << 20
	DefaultTmp       = 64 << 20
)

// The limits' names, as Outcome.Limit and the report give them.
const (
	LimitMemory    = "memory"
	LimitCPU       = "cpu"
	LimitFileSize  = "file_size"
	LimitProcesses = "processes"
)

// effective fills in the defaults.
func (l Limits) effective(timeout time.Duration) Limits {
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = DefaultMemory
	}
	if l.CPUSeconds <= 0 {
		l.CPUSeconds = max(int64(2*timeout/time.Second), 10)
	}
	if l.FileBytes <= 0 {
		l.FileBytes = DefaultFileSize
	}
	if l.Processes <= 0 {
		l.Processes = DefaultProcesses
	}
	if l.FolderBytes <= 0 {
		l.FolderBytes = DefaultFolder
	}
	if l.TmpBytes <= 0 {
		l.TmpBytes = DefaultTmp
	}
	return l
}

// describe words one limit for a message: "the memory limit (2 GiB)".
func (l Limits) describe(name string) string {
	switch name {
	case LimitMemory:
		return fmt.Sprintf("the memory limit (%s)", bytesText(l.MemoryBytes))
	case LimitCPU:
		return fmt.Sprintf("the CPU time limit (%d s)", l.CPUSeconds)
	case LimitFileSize:
		return fmt.Sprintf("the file size limit (%s)", bytesText(l.FileBytes))
	case LimitProcesses:
		return fmt.Sprintf("the process limit (%d)", l.Processes)
	}
	return "a limit"
}

// Describe words every limit a local test runs under, for the report:
// "address space 2 GiB per process, CPU time 120 s, ...".
func (r *Runner) Describe() string {
	l := r.Limits.effective(r.timeout())
	switch {
	case r.Image != "":
		return fmt.Sprintf("container %s: no network, no capability, no-new-privileges, memory %s (cgroup), address space %s per process, CPU time %d s, file size %s, %d processes",
			r.Image, bytesText(2*l.MemoryBytes), bytesText(l.MemoryBytes), l.CPUSeconds, bytesText(l.FileBytes), l.Processes)
	case r.NoSandbox:
		return fmt.Sprintf("none (chosen): the tests can read this machine's files and reach its network; address space %s per process, CPU time %d s, file size %s, %d processes",
			bytesText(l.MemoryBytes), l.CPUSeconds, bytesText(l.FileBytes), l.Processes)
	}
	total := "no cgroup of its own"
	if r.cgroup != "" {
		total = fmt.Sprintf("memory %s in total with its tmpfs and %d processes in a cgroup of its own", bytesText(l.MemoryBytes), l.Processes)
	} else if r.noCgroup != "" {
		total = "no cgroup of its own (" + r.noCgroup + ")"
	}
	return fmt.Sprintf("namespaces (user, mount, network, PID): address space %s per process, CPU time %d s, file size %s, %d processes and threads, the test's folder %s in total, /tmp and /dev/shm %s each, timeout %s; %s",
		bytesText(l.MemoryBytes), l.CPUSeconds, bytesText(l.FileBytes), l.Processes, bytesText(l.FolderBytes), bytesText(l.TmpBytes), r.timeout(), total)
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// bootstrap builds the sandbox and then starts pytest in it (see
// bootstrap.py).
//
//go:embed bootstrap.py
var bootstrap string

// statusFD is the descriptor of the bootstrap's own channel to benchgate
// (proc.Cmd.ExtraFiles[0]); pytest never holds it.
const statusFD = 3

// bootstrapArgv is the interpreter's argv that runs args (after the
// interpreter) under the bootstrap, in dir, inside the sandbox unless
// r.NoSandbox; it reports on statusFD.
func (r *Runner) bootstrapArgv(dir string, env []string, args []string) []string {
	return r.bootstrapArgvFor(!r.NoSandbox, dir, statusFD, env, args)
}

// bootstrapArgvFor is bootstrapArgv; sandbox is false in a container,
// which sees none of this machine's files anyway, and status is -1 where
// there is no channel. The interpreter starts isolated (-I: no PYTHONPATH,
// no user site, no script folder on sys.path; -S: no site, so no .pth file
// or sitecustomize runs): nothing of the case or the repository runs
// before the sandbox is complete. PYTHONPATH of env reaches pytest alone.
func (r *Runner) bootstrapArgvFor(sandbox bool, dir string, status int, env []string, args []string) []string {
	l := r.Limits.effective(r.timeout())
	cfg := map[string]any{
		"dir":        dir,
		"sandbox":    sandbox,
		"pythonpath": pythonPath(env),
		"limits": map[string]int64{"memory": l.MemoryBytes, "cpu": l.CPUSeconds, "file_size": l.FileBytes, "processes": l.Processes,
			"folder": l.FolderBytes, "tmp": l.TmpBytes},
		// What is copied back from the test's folder.
		"keep": []string{reportName},
	}
	if status >= 0 {
		cfg["status_fd"] = status
	}
	data, _ := json.Marshal(cfg)
	return append([]string{r.python(), "-I", "-S", "-B", "-c", bootstrap, string(data)}, args...)
}

// pythonPath is the PYTHONPATH of env as a list (the last setting wins).
func pythonPath(env []string) []string {
	out := []string{}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PYTHONPATH="); ok {
			out = out[:0]
			for _, p := range strings.Split(v, ":") {
				if p != "" {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// sandboxStatus is what the bootstrap reported on its own channel: the
// test cannot write there, so a limit named here is one the sandbox saw.
type sandboxStatus struct {
	ready   bool     // the sandbox was complete when pytest started
	refused []string // why the sandbox could not be built (pytest did not start)
	notes   []string // parts missing that weaken no isolation
	limits  []string // limits the sandbox saw the test reach
	// cgroup is "memory N processes N" when the test had a cgroup of its
	// own, noCgroup why it had none.
	cgroup, noCgroup string
}

// parseStatus reads the bootstrap's channel: one "word text" line each.
func parseStatus(data []byte) sandboxStatus {
	var st sandboxStatus
	for _, line := range strings.Split(string(data), "\n") {
		word, text, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch word {
		case "ready":
			st.ready = true
		case "refused":
			st.refused = append(st.refused, text)
		case "note":
			st.notes = append(st.notes, text)
		case "limit":
			st.limits = append(st.limits, text)
		case "cgroup":
			st.cgroup = text
		case "nocgroup":
			st.noCgroup = text
		}
	}
	return st
}

// memoryError is what Python reports when the address-space limit
// refuses an allocation.
var memoryError = regexp.MustCompile(`\bMemoryError\b`)

// limitHit names the limit the sandbox saw the run reach, or "". The
// sandbox's channel decides; the test's output can only take a claim
// away, never make one: the memory limit counts when the sandbox saw
// the test's memory reach half the limit and the output shows the
// MemoryError it caused (a test that merely printed "MemoryError" used
// little memory; one that used much and failed otherwise hit nothing).
func limitHit(st sandboxStatus, output string) string {
	for _, name := range st.limits {
		switch {
		case name == memoryTotal:
			// The cgroup's own count of the processes it killed.
			return LimitMemory
		case name == LimitMemory && !memoryError.MatchString(output):
			continue
		}
		return name
	}
	return ""
}

// memoryTotal is the bootstrap's name of a kill by the cgroup's memory
// limit.
const memoryTotal = "memory_total"

var sizePattern = regexp.MustCompile(`^(\d+)\s*([KMGT]?)(IB|B)?$`)

// ParseSize reads a size such as 2GiB, 512MiB, 1G or 4096 (bytes); a
// suffix is binary (K = 1024).
func ParseSize(s string) (int64, error) {
	m := sizePattern.FindStringSubmatch(strings.TrimSpace(strings.ToUpper(s)))
	if m == nil {
		return 0, fmt.Errorf("%q: expected a size such as 2GiB, 512MiB or a number of bytes", s)
	}
	var n int64
	if _, err := fmt.Sscan(m[1], &n); err != nil {
		return 0, fmt.Errorf("%q: %v", s, err)
	}
	shift := map[string]uint{"": 0, "K": 10, "M": 20, "G": 30, "T": 40}[m[2]]
	if n <= 0 || n > (1<<62)>>shift {
		return 0, fmt.Errorf("%q: expected a size above zero", s)
	}
	return n << shift, nil
}

// Unenforced says, after Preflight, which limit the sandbox cannot hold
// in total on this machine, so that the audit can say so before any test
// runs: without a cgroup of its own (an ordinary user, as on a
// GitHub-hosted runner) memory is bounded per process, by the address
// space, and by the number of processes, not in total. Processes (the
// user namespace's process limit) and disk (the tmpfs sizes) are bounded
// in total either way. "" when the test gets a cgroup, in a container
// (whose cgroup bounds it), and without a sandbox (warned apart).
func (r *Runner) Unenforced() string {
	if r.Image != "" || r.NoSandbox || r.cgroup != "" {
		return ""
	}
	l := r.Limits.effective(r.timeout())
	why := "no cgroup of its own"
	if r.noCgroup != "" {
		why += " (" + r.noCgroup + ")"
	}
	return fmt.Sprintf("%s: memory is not limited in total, only per process (address space %s) and by the %d processes a test may have, up to %s; processes and disk (the test's folder %s, /tmp and /dev/shm %s each) are limited in total",
		why, bytesText(l.MemoryBytes), l.Processes, bytesText(l.MemoryBytes*l.Processes), bytesText(l.FolderBytes), bytesText(l.TmpBytes))
}
