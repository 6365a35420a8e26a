package swebench

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/failcode"
	"github.com/benchgate/benchgate/internal/fsutil"

	"github.com/benchgate/benchgate/internal/codex"
)

// TestDefaultsStopADeadEndpointWithin15Minutes: with the default limits, a
// batch whose endpoint died stops within 15 minutes. Each instance ends in
// its plan phase once codex made no progress for the idle timeout (plus
// the container, bootstrap and patch check around it, about 1.5 s measured;
// 30 s allowed); after DefaultMaxEndpointFailures of them the endpoint
// check runs the preflight and the probe, each bounded by its default.
// TestRealCodexDeadEndpointStopsTheBatch runs the same path with short
// limits.
func TestDefaultsStopADeadEndpointWithin15Minutes(t *testing.T) {
	const perInstanceOverhead = 30 * time.Second
	worst := time.Duration(DefaultMaxEndpointFailures)*(codex.DefaultIdleTimeout+perInstanceOverhead) +
		codex.DefaultPreflightTimeout + codex.DefaultProbeTimeout
	if worst > 15*time.Minute {
		t.Errorf("a dead endpoint stops a batch after up to %s with the defaults (%d instances x (idle %s + %s) + preflight %s + probe %s), want 15m at most",
			worst, DefaultMaxEndpointFailures, codex.DefaultIdleTimeout, perInstanceOverhead, codex.DefaultPreflightTimeout, codex.DefaultProbeTimeout)
	}
}

func TestRetry(t *testing.T) {
	code := func(c failcode.Code) *failcode.Code { return &c }
	tests := []struct {
		name                  string
		st                    Status
		runtime, all, missing bool
		// missingOrBoot is --retry-failed missing_image,codex_bootstrap_failed
		missingOrBoot bool
	}{
		{"success", Status{Status: "success"}, false, false, false, false},
		{"endpoint or engine failure", Status{Status: "failed", FailureReasonCode: code("runtime_error")}, true, true, false, false},
		{"patch that does not apply", Status{Status: "failed", FailureReasonCode: code("runtime_error"), PatchCheck: PatchDoesNotApply}, false, true, false, false},
		{"patch not checked (no git)", Status{Status: "failed", FailureReasonCode: code("runtime_error"), PatchCheck: PatchNotChecked}, false, true, false, false},
		{"patch the harness cannot apply", Status{Status: "failed", FailureReasonCode: code("runtime_error"), PatchCheck: PatchHarnessFails}, false, true, false, false},
		{"blocked", Status{Status: "failed", FailureReasonCode: code("blocked")}, false, true, false, false},
		{"missing image", Status{Status: "failed", FailureReasonCode: code("missing_image")}, false, true, true, true},
		{"bootstrap failed", Status{Status: "failed", FailureReasonCode: code("codex_bootstrap_failed")}, false, true, false, true},
		{"incomplete", Status{Status: "incomplete", FailureReasonCode: code("incomplete")}, false, true, false, false},
		{"failed without a code", Status{Status: "failed"}, false, true, false, false},
	}
	for _, tc := range tests {
		for mode, want := range map[string]bool{"": false, string(failcode.RuntimeError): tc.runtime, RetryAllFailures: tc.all, "missing_image": tc.missing,
			"missing_image,codex_bootstrap_failed": tc.missingOrBoot} {
			if got := (BatchOptions{RetryFailed: mode}).retry(tc.st); got != want {
				t.Errorf("%s with --retry-failed %q: retry %v, want %v", tc.name, mode, got, want)
			}
		}
	}
}

func TestParseRetryFailed(t *testing.T) {
	for in, want := range map[string]string{"": "", "all": "all", "runtime_error": "runtime_error", "missing_image, blocked": "missing_image,blocked"} {
		if got, err := ParseRetryFailed(in); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"some", "all,missing_image", "missing_image,", "success", "null"} {
		if _, err := ParseRetryFailed(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestEndpointFailure: only failures whose code says the endpoint may be
// gone count toward the circuit breaker, and not those the patch check
// decided or an interruption ended.
func TestEndpointFailure(t *testing.T) {
	code := func(c failcode.Code) *failcode.Code { return &c }
	tests := []struct {
		st   Status
		want bool
	}{
		{Status{Status: "failed", FailureReasonCode: code("runtime_error")}, true},
		{Status{Status: "failed", FailureReasonCode: code("runtime_error"), Interrupted: true}, false},
		{Status{Status: "failed", FailureReasonCode: code("runtime_error"), PatchCheck: PatchNotUTF8}, false},
		{Status{Status: "failed", FailureReasonCode: code("missing_image")}, false},
		{Status{Status: "failed", FailureReasonCode: code("blocked")}, false},
		{Status{Status: "incomplete", FailureReasonCode: code("incomplete")}, false},
		{Status{Status: "success"}, false},
		{Status{Status: "failed"}, false},
	}
	for _, tc := range tests {
		if got := endpointFailure(tc.st); got != tc.want {
			t.Errorf("%+v: %v, want %v", tc.st, got, tc.want)
		}
	}
}

// TestBatchPlan: a resume keeps its run root's scope; a filter or an
// instance file only chooses what runs now, a wider file widens the root,
// and the root's shard applies when --shard is not given.
func TestBatchPlan(t *testing.T) {
	ids := []string{"acme__p-1", "acme__p-2", "acme__p-3", "acme__p-4"}
	root := t.TempDir()
	m := Manifest{Batch: &BatchInfo{InstanceOrder: []string{"acme__p-1", "acme__p-3"}, Shard: "1/2"}}
	if err := fsutil.WriteJSONAtomic(filepath.Join(root, ManifestFile), m); err != nil {
		t.Fatal(err)
	}
	sh := func(s string) Shard { v, _ := ParseShard(s); return v }
	tests := []struct {
		name       string
		b          BatchOptions
		run, scope []string
		wantErr    string
	}{
		{name: "new batch, shard 1/2", b: BatchOptions{IDs: ids, Shard: sh("1/2")}, run: []string{"acme__p-1", "acme__p-3"}, scope: []string{"acme__p-1", "acme__p-3"}},
		{name: "resume without a file: the root's order", b: BatchOptions{IDs: DefaultIDs(), Resume: true}, run: []string{"acme__p-1", "acme__p-3"}, scope: []string{"acme__p-1", "acme__p-3"}},
		{name: "narrowed resume", b: BatchOptions{IDs: DefaultIDs(), Resume: true, Filter: regexp.MustCompile("-3$")}, run: []string{"acme__p-3"}, scope: []string{"acme__p-1", "acme__p-3"}},
		{name: "a file without --shard takes the root's shard", b: BatchOptions{IDs: append(ids, "acme__p-5"), Subset: "ids.txt", Resume: true},
			run: []string{"acme__p-1", "acme__p-3", "acme__p-5"}, scope: []string{"acme__p-1", "acme__p-3", "acme__p-5"}},
		{name: "another shard is refused", b: BatchOptions{IDs: ids, Subset: "ids.txt", Resume: true, Shard: sh("2/2")}, wantErr: `ran shard "1/2"`},
		{name: "a filter that leaves nothing", b: BatchOptions{IDs: ids, Resume: true, Filter: regexp.MustCompile("none")}, wantErr: "--filter and --slice leave none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.b.RunRoot = root
			if !tc.b.Resume {
				tc.b.RunRoot = filepath.Join(root, "new")
			}
			p, err := tc.b.plan()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(p.run, " ") != strings.Join(tc.run, " ") || strings.Join(p.scope, " ") != strings.Join(tc.scope, " ") {
				t.Errorf("run %v scope %v, want run %v scope %v", p.run, p.scope, tc.run, tc.scope)
			}
		})
	}
}
