// Package actrun runs GitHub Actions workflows under nektos/act for the
// tests, on the host (act's "-self-hosted" platform), as a self-hosted
// runner would: the steps run as this user with the tools on PATH. act is
// pinned in go.mod as a tool and built once per content of go.sum.
//
// A run returns what a user sees in the Actions tab, read from act's JSON
// log: each job's result, the workflow commands the steps printed
// (annotations, step outputs) and the raw log lines.
package actrun

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// Act returns the act binary built from the version go.mod pins.
func Act(t testing.TB) string {
	t.Helper()
	root := testenv.RepoRoot(t)
	return testenv.Binary(t, testenv.Build{Dir: root, Package: "github.com/nektos/act", Name: "act", Env: []string{"CGO_ENABLED=0"}})
}

// A Run is one `act <event>` invocation in a repository folder.
type Run struct {
	// Repo is the repository the workflow runs in: act copies it as the
	// workspace (actions/checkout of the same repository is skipped, as
	// act does).
	Repo string
	// Workflow is the workflow file, relative to Repo.
	Workflow string
	// Event is the event name (pull_request, workflow_dispatch, ...);
	// EventJSON, when set, is the event payload.
	Event     string
	EventJSON string
	// Args are more act flags (--secret, --input, --local-repository,
	// --matrix, ...).
	Args []string
	// Env is added to act's environment, which host-mode steps inherit.
	Env []string
	// Cache is where act keeps its workspace copies and action cache
	// (XDG_CACHE_HOME), so that runs do not share them.
	Cache string
	// ArtifactDir is the artifact server's storage folder.
	ArtifactDir string
	// Timeout bounds the whole run.
	Timeout time.Duration
}

// A Line is one line of act's JSON log.
type Line struct {
	Job        string            `json:"job"`
	JobID      string            `json:"jobID"`
	Matrix     map[string]any    `json:"matrix"`
	Msg        string            `json:"msg"`
	Level      string            `json:"level"`
	Step       string            `json:"step"`
	StepID     []string          `json:"stepID"`
	RawOutput  bool              `json:"raw_output"`
	StepResult string            `json:"stepResult"`
	JobResult  string            `json:"jobResult"`
	JobOutputs map[string]string `json:"jobOutputs"`
}

// JobKey names a job run as act logs it: the job ID, with the matrix
// values (sorted by key) in brackets when there are any, e.g.
// "set[set=pr-exec]".
func (l Line) JobKey() string {
	if len(l.Matrix) == 0 {
		return l.JobID
	}
	keys := make([]string, 0, len(l.Matrix))
	for k := range l.Matrix {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, l.Matrix[k])
	}
	return l.JobID + "[" + strings.Join(parts, ",") + "]"
}

// A Result is what one run showed.
type Result struct {
	// Jobs maps each job run (JobKey) to its result: success or failure.
	// A job skipped by its `if:` or `needs:` does not appear.
	Jobs  map[string]string
	Lines []Line
	// Log is act's whole output, for failure messages.
	Log string
	// Err is act's exit error (non-nil when any job failed).
	Err error
}

// Output returns the raw output lines a job printed (its steps' stdout).
func (r Result) Output(job string) string {
	var b strings.Builder
	for _, l := range r.Lines {
		if l.JobKey() == job && l.RawOutput {
			b.WriteString(l.Msg)
		}
	}
	return b.String()
}

// Commands returns the workflow commands of a kind (error, warning,
// notice, set-output) act processed for a job, as it logs them: the text
// after "::<kind>" (e.g. " file=a,line=3::boom" for ::error). act puts
// an icon before each; commands it only echoes (notice, and warning in
// some versions) get ❓ or 🚧.
func (r Result) Commands(job, kind string) []string {
	var out []string
	for _, l := range r.Lines {
		if l.JobKey() != job || l.RawOutput {
			continue
		}
		msg := strings.TrimSpace(l.Msg)
		if _, rest, ok := strings.Cut(msg, "::"+kind); ok && (strings.HasPrefix(msg, "❗") || strings.HasPrefix(msg, "⚙") || strings.HasPrefix(msg, "⚠") || strings.HasPrefix(msg, "💬") || strings.HasPrefix(msg, "📝") || strings.HasPrefix(msg, "❓") || strings.HasPrefix(msg, "🚧")) {
			out = append(out, rest)
		}
	}
	return out
}

// Outputs returns the step outputs a job set (name=value), as act logs
// them when it reads GITHUB_OUTPUT.
func (r Result) Outputs(job string) map[string]string {
	out := map[string]string{}
	for _, c := range r.Commands(job, "set-output::") {
		if k, v, ok := strings.Cut(strings.TrimSpace(c), "="); ok {
			out[k] = v
		}
	}
	return out
}

// Exec runs act and parses its log. A failing job is not an error of
// Exec: it is in Result.Jobs and Result.Err.
func Exec(t testing.TB, act string, r Run) Result {
	t.Helper()
	if r.Timeout == 0 {
		r.Timeout = 10 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.Timeout)
	defer cancel()
	args := []string{r.Event, "-W", r.Workflow, "--json",
		// Every label a workflow names runs on the host, as a
		// self-hosted runner.
		"-P", "ubuntu-latest=-self-hosted", "-P", "self-hosted=-self-hosted",
		"--artifact-server-path", r.ArtifactDir, "--artifact-server-port", freePort(t),
		"--action-offline-mode", "--no-cache-server",
	}
	if r.EventJSON != "" {
		ev := filepath.Join(t.TempDir(), "event.json")
		if err := os.WriteFile(ev, []byte(r.EventJSON), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-e", ev)
	}
	args = append(args, r.Args...)
	cmd := exec.CommandContext(ctx, act, args...)
	cmd.Dir = r.Repo
	// act keeps its copies under XDG_CACHE_HOME; Go's build cache, which
	// the action's build from source uses, stays where it was.
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOCACHE: %v", err)
	}
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+r.Cache, "GOCACHE="+strings.TrimSpace(string(gocache)))
	cmd.Env = append(cmd.Env, r.Env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("act %s timed out after %s; log:\n%s", r.Workflow, r.Timeout, tail(out.String(), 8000))
	}
	res := Result{Jobs: map[string]string{}, Log: out.String(), Err: err}
	sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	stepsRun, stepFailed := map[string]bool{}, map[string]bool{}
	for sc.Scan() {
		var l Line
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		res.Lines = append(res.Lines, l)
		switch {
		case l.StepResult == "failure":
			stepFailed[l.JobKey()] = true
		case l.StepResult != "":
			stepsRun[l.JobKey()] = true
		}
		if l.JobResult != "" {
			res.Jobs[l.JobKey()] = l.JobResult
		}
	}
	// act keeps one result for a whole matrix (setJobResult in its
	// job_executor.go): a matrix child that ends after a failed sibling is
	// logged "Job failed" though none of its own steps failed, so which
	// child reads failed depends on which ended first. GitHub judges each
	// child by its own steps, and so does this.
	for _, l := range res.Lines {
		key := l.JobKey()
		if len(l.Matrix) > 0 && res.Jobs[key] == "failure" && stepsRun[key] && !stepFailed[key] {
			res.Jobs[key] = "success"
		}
	}
	return res
}

// freePort returns a TCP port nothing listens on now: act's artifact
// server otherwise takes a fixed one, and two act runs on one machine
// (tests of two checkouts) would stop each other.
func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
