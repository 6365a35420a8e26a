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
