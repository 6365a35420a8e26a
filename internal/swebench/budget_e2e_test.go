package swebench

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/ralph"
)

// TestInstanceBudgets runs instances on the real engine that would go on
// for long: an agent that hangs in its execute phase (phase timeout one
// minute, instance budget two seconds), and one that never finishes and
// spends 120 tokens a phase (budget 250). Both end incomplete, not
// interrupted, with a detail that names the budget.
func TestInstanceBudgets(t *testing.T) {
	dc := dockerClient(t)
	tests := []struct {
		name, scenario string
		set            func(o *Options)
		detail         string
		maxTook        time.Duration
	}{
		{"wall clock", "hang", func(o *Options) { o.InstanceTimeout = 2 * time.Second }, "ran for its whole --instance-timeout of 2s", 30 * time.Second},
		{"tokens", "noop", func(o *Options) { o.MaxTokens = 250; o.MaxLoops = 50 }, "over its --max-tokens of 250", 60 * time.Second},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			id := "acme__budget" + strings.Repeat("x", i) + "-7"
			tmpl := "sweb.eval.arm64.{id}:latest"
			importImage(t, dc, ImageName(tmpl, id), true)
			o := baseOptions(t, dc, datasetFile(t, dir, id), tmpl, tc.scenario)
			o.InstanceID, o.OutputDir = id, filepath.Join(dir, "out", id)
			tc.set(&o)
			start := time.Now()
			st, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			noLeaks(t, dc, LabelOutputDir+"="+o.OutputDir)
			if st.Status != ralph.StatusIncomplete || st.Interrupted || !strings.Contains(st.FailureReasonDetail, tc.detail) {
				t.Fatalf("status %s interrupted %v detail %q; want incomplete naming %q", st.Status, st.Interrupted, st.FailureReasonDetail, tc.detail)
			}
			if took := time.Since(start); took > tc.maxTook {
				t.Errorf("took %s", took)
			}
			if !st.Terminal() {
				t.Error("a spent budget must be terminal, so that a resume does not run it again")
			}
		})
	}
}
