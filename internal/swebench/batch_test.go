package swebench

import (
	"testing"
	"time"

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
	code := func(c string) *string { return &c }
	tests := []struct {
		name         string
		st           Status
		runtime, all bool
	}{
		{"success", Status{Status: "success"}, false, false},
		{"endpoint or engine failure", Status{Status: "failed", FailureReasonCode: code("runtime_error")}, true, true},
		{"patch that does not apply", Status{Status: "failed", FailureReasonCode: code("runtime_error"), PatchCheck: PatchDoesNotApply}, false, true},
		{"patch not checked (no git)", Status{Status: "failed", FailureReasonCode: code("runtime_error"), PatchCheck: PatchNotChecked}, false, true},
		{"blocked", Status{Status: "failed", FailureReasonCode: code("blocked")}, false, true},
		{"missing image", Status{Status: "failed", FailureReasonCode: code("missing_image")}, false, true},
		{"incomplete", Status{Status: "incomplete", FailureReasonCode: code("incomplete")}, false, true},
	}
	for _, tc := range tests {
		for mode, want := range map[string]bool{"": false, RetryRuntimeErrors: tc.runtime, RetryAllFailures: tc.all} {
			if got := (BatchOptions{RetryFailed: mode}).retry(tc.st); got != want {
				t.Errorf("%s with --retry-failed %q: retry %v, want %v", tc.name, mode, got, want)
			}
		}
	}
}
