// Package failcode is the one table of an instance's failure reason
// codes: their names (fixed by the artifact contract), whether a retry
// can end otherwise once the runner's side is fixed, and whether a run of
// them says the model endpoint is gone. The Ralph loop, the SWE-bench
// runner, batch, merge and the Action read them here, and hold them as a
// Code (a *Code in the status and manifest files, nil on success, written
// as null).
package failcode

import (
	"fmt"
	"sort"
	"strings"
)

// Code is a failure_reason_code.
type Code string

// The codes. A success has none (null).
const (
	// MissingImage: the instance image is not on the engine.
	MissingImage Code = "missing_image"
	// BootstrapFailed: no codex could be run in the instance container.
	BootstrapFailed Code = "codex_bootstrap_failed"
	// Blocked: the agent gave up and moved its plans to blocked/.
	Blocked Code = "blocked"
	// Incomplete: the loop or a budget ended before the agent finished.
	Incomplete Code = "incomplete"
	// RuntimeError: a phase, the engine or the patch check failed.
	RuntimeError Code = "runtime_error"
	// NoChange: the agent archived its plans (done), but its final tree
	// equals the base commit: there is nothing to predict, whatever patch
	// file it wrote.
	NoChange Code = "no_change"
)

// Info is one row of the table.
type Info struct {
	Code Code
	// Retryable: the runner's side (the engine, an image, the endpoint)
	// caused it, so a retry once that is fixed can end otherwise; the
	// agent's own verdicts (blocked, incomplete) are not.
	Retryable bool
	// Endpoint: instances in a row ending with it, outside the patch
	// check, count toward the endpoint circuit breaker.
	Endpoint bool
	// Meaning says what it means, in Markdown: it is the meaning column
	// of docs/swebench.md's table (DocsTable).
	Meaning string
}

// Table lists every code once, in the contract's order.
var Table = []Info{
	{Code: MissingImage, Retryable: true, Meaning: "the instance image is not on the engine"},
	{Code: BootstrapFailed, Retryable: true, Meaning: "no codex could be run in the instance container"},
	{Code: Blocked, Meaning: "the agent moved its plans to `blocked/`"},
	{Code: Incomplete, Meaning: "the loop budget or an instance budget ended first"},
	{Code: RuntimeError, Retryable: true, Endpoint: true, Meaning: "a phase, the engine or the patch check failed"},
	{Code: NoChange, Meaning: "the agent said done, but its final tree equals the base commit"},
}

// Lookup returns the row of a code.
func Lookup(code Code) (Info, bool) {
	for _, in := range Table {
		if in.Code == code {
			return in, true
		}
	}
	return Info{}, false
}

// Names are the codes' names, sorted.
func Names() []string {
	var s []string
	for _, in := range Table {
		s = append(s, string(in.Code))
	}
	sort.Strings(s)
	return s
}

// ParseList reads a comma-separated list of codes ("missing_image,runtime_error").
func ParseList(s string) ([]Code, error) {
	var out []Code
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if _, ok := Lookup(Code(f)); !ok {
			return nil, fmt.Errorf("%q is not a failure code (expected one of %s)", f, strings.Join(Names(), ", "))
		}
		out = append(out, Code(f))
	}
	return out, nil
}
