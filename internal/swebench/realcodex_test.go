package swebench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/codex"
	"github.com/benchgate/benchgate/internal/ralph"
	"github.com/benchgate/benchgate/internal/testsupport/deadendpoint"
	"github.com/benchgate/benchgate/internal/testsupport/fakeresponses"
	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
)

// TestRunRealCodex runs one instance end to end with the real Codex CLI:
// the image has no codex, so the runner bootstraps the pinned binary into
// the container; the container shares the host network and reaches a
// scripted Responses API server on 127.0.0.1. The scripted model makes
// Codex write the plan, then archive the plan documents and write the
// patch, which the runner must classify as a success. The second case
// takes a handoff first, so `codex exec resume` runs in the container too.
func TestRunRealCodex(t *testing.T) {
	rc := swebenchtest.NewRealCodex(t)
	type phase struct {
		name  ralph.Phase
		turns []fakeresponses.Turn
		usage ralph.Usage // the phase's own tokens
	}
	u := func(in, cached, out, reasoning int64) fakeresponses.Usage {
		return fakeresponses.Usage{InputTokens: in, CachedTokens: cached, OutputTokens: out, ReasoningTokens: reasoning}
	}
	planPhase := func(p Paths) phase {
		return phase{ralph.PhasePlan, []fakeresponses.Turn{
			{Items: []fakeresponses.Item{fakeresponses.Shell("printf '# Plan\\n1. fix README\\n' > " + filepath.Join(p.Plans, ralph.PlanFile) + " && echo PLAN_WRITTEN")}, Usage: u(1000, 200, 30, 5)},
			{Items: []fakeresponses.Item{fakeresponses.Message("Plan written.")}, Usage: u(1100, 1000, 4, 0)},
		}, ralph.Usage{InputTokens: 2100, CachedInputTokens: 1200, OutputTokens: 34, ReasoningOutputTokens: 5}}
	}
	// The model edits README in the code folder and writes the patch with
	// the command the built-in execute prompt gives, as the prompt says.
	fixPhase := func(p Paths) phase {
		cmd := rc.ExecuteCommand(t, p.Plans, p.Patch, "printf 'fixed code\\n' > /testbed/README", "")
		return phase{ralph.PhaseExecute, []fakeresponses.Turn{
			{Items: []fakeresponses.Item{fakeresponses.Shell(cmd)}, Usage: u(2000, 100, 60, 9)},
			{Items: []fakeresponses.Item{fakeresponses.Message("Done.")}, Usage: u(2100, 2000, 3, 0)},
		}, ralph.Usage{InputTokens: 4100, CachedInputTokens: 2100, OutputTokens: 63, ReasoningOutputTokens: 9}}
	}
	tests := []struct {
		name   string
		phases func(p Paths) []phase
	}{
		{name: "success on the first execute pass", phases: func(p Paths) []phase { return []phase{planPhase(p), fixPhase(p)} }},
		{name: "success after a handoff", phases: func(p Paths) []phase {
			return []phase{
				planPhase(p),
				{ralph.PhaseExecute, []fakeresponses.Turn{{Items: []fakeresponses.Item{fakeresponses.Message("EXEC1_NOT_DONE: need another pass.")}, Usage: u(500, 0, 10, 1)}},
					ralph.Usage{InputTokens: 500, OutputTokens: 10, ReasoningOutputTokens: 1}},
				{ralph.PhaseHandoff, []fakeresponses.Turn{{Items: []fakeresponses.Item{fakeresponses.Message("Handoff written.")}, Usage: u(700, 500, 20, 2)}},
					ralph.Usage{InputTokens: 700, CachedInputTokens: 500, OutputTokens: 20, ReasoningOutputTokens: 2}},
				fixPhase(p),
			}
		}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := "acme__realcodex-" + string(rune('1'+i)) + "00"
			dir := t.TempDir()
			out := filepath.Join(dir, "run", id)
			p := PathsFor(out, id)
			phases := tc.phases(p)
			var script []fakeresponses.Turn
			for _, ph := range phases {
				script = append(script, ph.turns...)
			}
			srv := fakeresponses.New([]string{swebenchtest.RealCodexModel}, script...)
			defer srv.Close()

			swebenchtest.ImportRealCodexImage(t, rc.Docker, ImageName(realCodexImages, id))
			o := realCodexOptions(t, rc, dir, id, srv.BaseURL())
			o.MaxLoops = 2
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			st, err := Run(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			swebenchtest.NoLeaks(t, rc.Docker, LabelOutputDir+"="+out)
			if st.Status != ralph.StatusSuccess {
				logs, _ := os.ReadDir(p.Logs)
				for _, l := range logs {
					b, _ := os.ReadFile(filepath.Join(p.Logs, l.Name()))
					t.Logf("--- %s\n%s", l.Name(), b)
				}
				t.Fatalf("status %s (%v): %s; violations %q", st.Status, st.FailureReasonCode, st.FailureReasonDetail, srv.Violations())
			}
			if v := srv.Violations(); len(v) > 0 {
				t.Errorf("protocol violations: %q", v)
			}
			if srv.Remaining() != 0 {
				t.Errorf("%d scripted turns unused", srv.Remaining())
			}

			// The agent's files, written by real commands inside the container.
			for _, f := range []string{ralph.SpecFile, ralph.PlanFile} {
				if _, err := os.Stat(filepath.Join(p.Plans, "archive", f)); err != nil {
					t.Errorf("plan document not archived: %v", err)
				}
			}
			// git's own diff of the edited README, the prediction.
			b, _ := os.ReadFile(p.Patch)
			patch := string(b)
			if !strings.HasPrefix(patch, "diff --git a/README b/README\nindex ") || !strings.HasSuffix(patch, "\n--- a/README\n+++ b/README\n@@ -1 +1 @@\n-code\n+fixed code\n") {
				t.Errorf("%s is not git's diff of README:\n%s", p.Patch, patch)
			}
			var pred Pred
			swebenchtest.ReadJSON(t, p.Pred, &pred)
			if pred != (Pred{ModelNameOrPath: "qwen3-coder-next-FP8,codex,ralph", InstanceID: id, ModelPatch: patch}) {
				t.Errorf(".pred = %+v", pred)
			}
			if st.PatchCheck != PatchApplies {
				t.Errorf("patch_check %q, want %q", st.PatchCheck, PatchApplies)
			}

			// status.json: the outcome, the sessions and the tokens per phase.
			var got Status
			swebenchtest.ReadJSON(t, p.Status, &got)
			passes := 0
			for _, ph := range phases {
				if ph.name == ralph.PhaseExecute {
					passes++
				}
			}
			// The codex that ran is the runner's, mounted, and named.
			if !regexp.MustCompile(`^codex-cli 0\.169\.`).MatchString(got.CodexVersion) {
				t.Errorf("status.json codex_version %q, want the pinned codex-cli 0.169", got.CodexVersion)
			}
			var man Manifest
			swebenchtest.ReadJSON(t, filepath.Join(filepath.Dir(out), ManifestFile), &man)
			if man.Codex.Version != got.CodexVersion || man.Instances[id].CodexVersion != got.CodexVersion {
				t.Errorf("manifest codex.version %q, entry %q; want %q", man.Codex.Version, man.Instances[id].CodexVersion, got.CodexVersion)
			}
			if log, _ := os.ReadFile(filepath.Join(p.Logs, "runner.log")); !strings.Contains(string(log), "mounted read-only at "+CodexMountPath) {
				t.Errorf("runner.log does not say codex was mounted:\n%s", log)
			}
			if got.Status != "success" || got.FailureReasonCode != nil || got.ExecutePasses != passes {
				t.Errorf("status.json: status %q code %v passes %d, want success, no code, %d passes", got.Status, got.FailureReasonCode, got.ExecutePasses, passes)
			}
			if len(got.Phases) != len(phases) {
				t.Fatalf("status.json has %d phases, want %d: %+v", len(got.Phases), len(phases), got.Phases)
			}
			var total ralph.Usage
			for i, w := range phases {
				ph := got.Phases[i]
				if ph.Phase != w.name || ph.ExitCode != 0 || ph.Failed || len(ph.ThreadID) != 36 {
					t.Errorf("phase %d = %+v, want a clean %s with a thread id", i, ph, w.name)
				}
				// Codex reports the thread's running total in turn.completed,
				// so a resumed phase's own share is its figure minus the
				// resumed session's; codex.Ledger.Share computes it.
				if ph.Usage != w.usage {
					t.Errorf("phase %d (%s) usage %+v, want its own tokens %+v (a resumed session reports the thread total; codex.Ledger.Share gives a phase its own tokens)", i, w.name, ph.Usage, w.usage)
				}
				total = addUsage(total, w.usage)
				if w.name == ralph.PhaseHandoff && ph.ThreadID != got.Phases[i-1].ThreadID {
					t.Errorf("handoff ran in thread %s, want the execute thread %s", ph.ThreadID, got.Phases[i-1].ThreadID)
				}
				if w.name == ralph.PhaseExecute && ph.ThreadID == got.Phases[i-1].ThreadID {
					t.Errorf("execute pass reused thread %s; it must start a new session", ph.ThreadID)
				}
			}
			if got.Usage != total {
				t.Errorf("status.json usage %+v, want %+v", got.Usage, total)
			}

			// What Codex sent from inside the container.
			reqs := srv.ResponseRequests()
			if len(reqs) != len(script) {
				t.Fatalf("%d model requests, want %d", len(reqs), len(script))
			}
			if !strings.Contains(reqs[0].InputText(), p.Plans) {
				t.Errorf("the plan prompt does not name the plans folder %s:\n%s", p.Plans, reqs[0].InputText())
			}
			if outs := reqs[len(reqs)-1].FunctionOutputs(); len(outs) != 1 || !strings.Contains(outs[0], "EXECUTED") {
				t.Errorf("execute tool output %q", outs)
			}
			for i, ph := range phases {
				if ph.name != ralph.PhaseHandoff {
					continue
				}
				// The resumed request re-sends the execute session's history.
				n := 0
				for _, q := range phases[:i] {
					n += len(q.turns)
				}
				if text := reqs[n].InputText(); !strings.Contains(text, "EXEC1_NOT_DONE") {
					t.Errorf("handoff request lacks the execute session's history:\n%s", text)
				}
			}

			var m struct {
				Instances map[string]struct{ Status string } `json:"instances"`
			}
			swebenchtest.ReadJSON(t, filepath.Join(o.ManifestDir, "run_manifest.json"), &m)
			if m.Instances[id].Status != "success" {
				t.Errorf("run_manifest.json: %+v", m.Instances)
			}
		})
	}
}

func addUsage(a, b ralph.Usage) ralph.Usage {
	return ralph.Usage(codex.Usage(a).Add(codex.Usage(b)))
}

// realCodexImages names the instance images the real-Codex tests import.
const realCodexImages = "sweb.eval.arm64.{id}:latest"

// realCodexOptions runs instance id once with the real Codex CLI, into
// dir/run/id, against the scripted Responses server at baseURL, which
// the container reaches on the host's network.
func realCodexOptions(t testing.TB, rc swebenchtest.RealCodex, dir, id, baseURL string) Options {
	out := filepath.Join(dir, "run", id)
	return Options{
		InstanceID: id, OutputDir: out, ManifestDir: filepath.Dir(out),
		MaxLoops: 1, PhaseTimeout: 2 * time.Minute, Prompts: rc.Prompts,
		DatasetFile: swebenchtest.DatasetFile(t, dir, id), ImageTemplate: realCodexImages,
		CodexBinary: rc.Binary, Provider: &codex.Provider{BaseURL: baseURL, Model: swebenchtest.RealCodexModel},
		Network: "host", Docker: rc.Docker,
	}
}

// BenchmarkBatch100RealCodex runs a batch of 100 instances with the real
// Codex CLI, bootstrapped into each instance container, against the
// scripted Responses server: per instance a plan phase and an execute
// phase that edits the code, writes its patch with the execute prompt's
// git diff command and archives the plans. It is
// the whole cost of a batch whose model answers at once.
func BenchmarkBatch100RealCodex(b *testing.B) {
	rc := swebenchtest.NewRealCodex(b)
	tmpl := realCodexImages
	var ids []string
	for i := 0; i < 100; i++ {
		id := fmt.Sprintf("acme__rc100-%03d", i+1)
		swebenchtest.ImportRealCodexImage(b, rc.Docker, ImageName(tmpl, id))
		ids = append(ids, id)
	}
	for n := 0; n < b.N; n++ {
		dir := b.TempDir()
		root := filepath.Join(dir, "root")
		var script []fakeresponses.Turn
		for _, id := range ids {
			p := PathsFor(filepath.Join(root, id), id)
			fix := rc.ExecuteCommand(b, p.Plans, p.Patch, "printf 'fixed code\\n' > /testbed/README", "")
			script = append(script, swebenchtest.Script(p.Plans, "# Plan\\n", fix)...)
		}
		srv := fakeresponses.New([]string{swebenchtest.RealCodexModel}, script...)
		o := Options{MaxLoops: 2, PhaseTimeout: 2 * time.Minute, Prompts: rc.Prompts, DatasetFile: swebenchtest.DatasetFile(b, dir, ids...),
			ImageTemplate: tmpl, CodexBinary: rc.Binary, Provider: &codex.Provider{BaseURL: srv.BaseURL(), Model: swebenchtest.RealCodexModel}, Network: "host", Docker: rc.Docker}
		b.StartTimer()
		res, err := Batch(context.Background(), BatchOptions{IDs: ids, Instance: o, RunRoot: root, Stdout: io.Discard})
		b.StopTimer()
		srv.Close()
		if err != nil || res.Counts.Success != 100 {
			b.Fatalf("%+v %v; violations %q", res.Counts, err, srv.Violations())
		}
	}
}

// BenchmarkCodexOverhead measures, side by side in one run, one instance
// with the real Codex CLI (294 MB) in an image prepared by prepare-images
// and one whose image lacks codex, so the runner mounts the binary
// read-only: alternately, so that load from other work falls on both.
// Each instance runs a plan and an execute phase against the scripted
// Responses server (the model answers at once), so the time is the
// runner's and codex's own. It reports seconds per instance of each,
// their ratio, and how many bytes the bootstrapped image grew (the
// prepared one grows by the binary, once).
func BenchmarkCodexOverhead(b *testing.B) {
	rc := swebenchtest.NewRealCodex(b)
	codexBin, dc := rc.Binary, rc.Docker
	ctx := context.Background()
	tmpl := realCodexImages
	prepared, bare := "acme__overhead-1", "acme__overhead-2"
	for _, id := range []string{prepared, bare} {
		swebenchtest.ImportRealCodexImage(b, dc, ImageName(tmpl, id))
	}
	if failed, err := PrepareImages(ctx, PrepareOptions{IDs: []string{prepared}, ImageTemplate: tmpl, CodexBinary: codexBin, Docker: dc, Stdout: io.Discard}); err != nil || failed != 0 {
		b.Fatalf("prepare-images: %d failed, %v", failed, err)
	}
	bareBefore, err := dc.ImageInspect(ctx, ImageName(tmpl, bare))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	dataset := swebenchtest.DatasetFile(b, dir, prepared, bare)
	run := func(id string, n int) time.Duration {
		out := filepath.Join(dir, strconv.Itoa(n), id)
		p := PathsFor(out, id)
		fix := rc.ExecuteCommand(b, p.Plans, p.Patch, "printf 'fixed code\\n' > /testbed/README", "")
		srv := fakeresponses.New([]string{swebenchtest.RealCodexModel}, swebenchtest.Script(p.Plans, "# Plan\\n", fix)...)
		defer srv.Close()
		o := Options{InstanceID: id, OutputDir: out, MaxLoops: 1, PhaseTimeout: 2 * time.Minute, Prompts: rc.Prompts, DatasetFile: dataset,
			ImageTemplate: tmpl, Provider: &codex.Provider{BaseURL: srv.BaseURL(), Model: swebenchtest.RealCodexModel}, Network: "host", Docker: dc}
		if id == bare {
			o.CodexBinary = codexBin
		}
		start := time.Now()
		st, err := Run(ctx, o)
		took := time.Since(start)
		if err != nil || st.Status != ralph.StatusSuccess || !strings.HasPrefix(st.CodexVersion, "codex-cli ") {
			b.Fatalf("%s: %+v %v; violations %q", id, st, err, srv.Violations())
		}
		return took
	}
	var prep, boot time.Duration
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		prep += run(prepared, n)
		boot += run(bare, n)
	}
	b.StopTimer()
	bareAfter, err := dc.ImageInspect(ctx, ImageName(tmpl, bare))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(prep.Seconds()/float64(b.N), "prepared-s/instance")
	b.ReportMetric(boot.Seconds()/float64(b.N), "bootstrapped-s/instance")
	b.ReportMetric(boot.Seconds()/prep.Seconds(), "bootstrapped/prepared")
	b.ReportMetric(float64(bareAfter.Size-bareBefore.Size), "bootstrap-image-growth-B")
	if bareAfter.ID != bareBefore.ID {
		b.Errorf("the bootstrapped image changed: %s -> %s", bareBefore.ID, bareAfter.ID)
	}
}

// TestRealCodexDeadEndpointStopsTheBatch: the endpoint dies after the
// batch started (its /models still answers): POST /responses accepts and
// never answers, answers 200 and stalls, or is refused. The real Codex CLI
// waits or retries for good; the idle timeout ends each instance's plan
// phase long before its phase timeout, and after three such instances the
// breaker's probe finds the endpoint dead and stops the batch, leaving the
// fourth instance not run.
func TestRealCodexDeadEndpointStopsTheBatch(t *testing.T) {
	rc := swebenchtest.NewRealCodex(t)
	for i, mode := range []deadendpoint.Mode{deadendpoint.Silent, deadendpoint.Stall, deadendpoint.Refused} {
		t.Run(string(mode), func(t *testing.T) {
			srv := deadendpoint.New(t, mode, swebenchtest.RealCodexModel)
			tmpl := realCodexImages
			var ids []string
			for n := 1; n <= 4; n++ {
				id := fmt.Sprintf("acme__dead%d-%d", i, n)
				swebenchtest.ImportRealCodexImage(t, rc.Docker, ImageName(tmpl, id))
				ids = append(ids, id)
			}
			dir := t.TempDir()
			root := filepath.Join(dir, "root")
			provider := codex.Provider{BaseURL: srv.BaseURL, Model: swebenchtest.RealCodexModel}
			const phaseTimeout = 10 * time.Minute
			var out strings.Builder
			b := BatchOptions{IDs: ids, RunRoot: root, Stdout: &out,
				Instance: Options{MaxLoops: 2, PhaseTimeout: phaseTimeout, IdleTimeout: 2 * time.Second, Prompts: rc.Prompts,
					DatasetFile: swebenchtest.DatasetFile(t, dir, ids...), ImageTemplate: tmpl, CodexBinary: rc.Binary,
					Provider: &provider, Network: "host", Docker: rc.Docker},
				EndpointCheck: func(ctx context.Context) error {
					ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
					defer cancel()
					if err := codex.PreflightProvider(ctx, provider, os.Getenv); err != nil {
						return err
					}
					return codex.ProbeResponses(ctx, provider, os.Getenv)
				},
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			res, err := Batch(ctx, b)
			if err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			for _, id := range ids {
				swebenchtest.NoLeaks(t, rc.Docker, LabelOutputDir+"="+filepath.Join(root, id))
			}
			if !strings.Contains(res.Stopped, "3 instances in a row failed with runtime_error and the endpoint preflight fails: model endpoint") ||
				!strings.Contains(res.Stopped, "1 instance(s) not run") {
				t.Errorf("stopped %q, want a stop after 3 instances with 1 not run:\n%s", res.Stopped, out.String())
			}
			for n, inst := range res.Instances {
				if n == 3 {
					if !errors.Is(inst.Err, fs.ErrNotExist) {
						t.Errorf("%s ran after the batch stopped: %+v %v", inst.ID, inst.Status, inst.Err)
					}
					continue
				}
				st := inst.Status
				if st.Status != ralph.StatusFailed || len(st.Phases) != 1 || !st.Phases[0].IdleTimeout ||
					!strings.Contains(st.FailureReasonDetail, "plan: no progress from codex for 2s (--idle-timeout)") {
					t.Errorf("%s: %s %q phases %+v, want the plan phase ended by the idle timeout", inst.ID, st.Status, st.FailureReasonDetail, st.Phases)
					continue
				}
				if took := time.Duration(st.Phases[0].DurationMS) * time.Millisecond; took >= phaseTimeout {
					t.Errorf("%s: the plan phase took %s, its whole phase timeout", inst.ID, took)
				}
			}
			// Codex reached the dead endpoint. Not necessarily from every
			// instance: on a busy machine Codex can take longer than the
			// 2 s idle timeout to start, and that instance ends the same way.
			if mode != deadendpoint.Refused && srv.Responses() < 1 {
				t.Errorf("the endpoint saw no POST /responses: Codex never reached it")
			}
		})
	}
}
