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
}

// Defaults of Limits.
const (
	DefaultMemory    = 2 << 30
	DefaultFileSize  = 1 << 30
	DefaultProcesses = 512
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

func bytesText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// bootstrap runs before pytest inside the namespaces: it hides the file
// system, brings loopback up and sets the limits (see bootstrap.py).
//
//go:embed bootstrap.py
var bootstrap string

// bootstrapArgv is the interpreter's argv that runs args (after the
// interpreter) under the bootstrap.
func (r *Runner) bootstrapArgv(args []string) []string {
	return r.bootstrapArgvFor(true, args)
}

// bootstrapArgvFor is bootstrapArgv; hide is false in a container, which
// sees none of this machine's files anyway.
func (r *Runner) bootstrapArgvFor(hide bool, args []string) []string {
	l := r.Limits.effective(r.timeout())
	cfg, _ := json.Marshal(map[string]any{
		"hide":   hide,
		"limits": map[string]int64{"memory": l.MemoryBytes, "cpu": l.CPUSeconds, "file_size": l.FileBytes, "processes": l.Processes},
	})
	return append([]string{r.python(), "-c", bootstrap, string(cfg)}, args...)
}

var (
	limitMarker = regexp.MustCompile(`(?m)^benchgate-sandbox: limit: (\w+)`)
	// What Python reports when a limit refuses it: MemoryError under the
	// address-space limit, EFBIG past the file size, EAGAIN from fork.
	memoryError  = regexp.MustCompile(`\bMemoryError\b`)
	fileTooLarge = regexp.MustCompile(`\[Errno 27\] File too large`)
	forkRefused  = regexp.MustCompile(`BlockingIOError: \[Errno 11\] Resource temporarily unavailable|can't start new thread`)
	refusedLine  = regexp.MustCompile(`(?m)^benchgate-sandbox: refused: (.*)$`)
)

// limitHit names the limit a run's output shows it ran into, or "".
func limitHit(output string) string {
	if m := limitMarker.FindStringSubmatch(output); m != nil {
		return m[1]
	}
	switch {
	case memoryError.MatchString(output):
		return LimitMemory
	case fileTooLarge.MatchString(output):
		return LimitFileSize
	case forkRefused.MatchString(output):
		return LimitProcesses
	}
	return ""
}

// refusals lists what the kernel refused the bootstrap, from its output.
func refusals(output string) []string {
	var out []string
	for _, m := range refusedLine.FindAllStringSubmatch(output, -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	return out
}

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
