package swebench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/failcode"
)

// batchFixture imports an image with the fake codex for every ID except
// missing, whose run then fails with missing_image.
func batchFixture(t *testing.T, ids []string, missing string) BatchOptions {
	t.Helper()
	dc := dockerClient(t)
	dir := t.TempDir()
	tmpl := "sweb.eval.arm64.{id}:latest"
	for _, id := range ids {
		if id != missing {
			importImage(t, dc, ImageName(tmpl, id), true)
		}
	}
	o := baseOptions(t, dc, datasetFile(t, dir, ids...), tmpl, "success")
	results := filepath.Join(dir, "results")
	root := RunRootFor(results, time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC))
	t.Cleanup(func() {
		for _, r := range []string{root, filepath.Join(results, "shard1"), filepath.Join(results, "shard2")} {
			noLeaks(t, dc, LabelManifestDir+"="+r)
		}
	})
	return BatchOptions{IDs: ids, Instance: o, RunRoot: root, Stdout: &bytes.Buffer{}}
}

func TestBatchSortsContinuesAndAggregates(t *testing.T) {
	ids := []string{"zeta__b-2", "alpha__a-10", "alpha__a-1", "zeta__b-2", "mid__m-5"}
	b := batchFixture(t, ids, "mid__m-5")
	if !regexp.MustCompile(`/results/20261122T010203\.000Z-[0-9a-f]{6}$`).MatchString(b.RunRoot) {
		t.Fatalf("run root %s", b.RunRoot)
	}
	res, err := Batch(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"alpha__a-1", "alpha__a-10", "mid__m-5", "zeta__b-2"}
	if strings.Join(res.Order, " ") != strings.Join(want, " ") {
		t.Fatalf("order %v, want %v", res.Order, want)
	}
	if res.Counts != (Counts{Total: 4, Success: 3, Failed: 1}) || res.Counts.ExitCode() != 1 {
		t.Fatalf("counts %+v", res.Counts)
	}
	preds, err := os.ReadFile(filepath.Join(b.RunRoot, "predictions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(preds)), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d prediction rows, want 4", len(lines))
	}
	for i, id := range want {
		if !strings.Contains(lines[i], `"instance_id":"`+id+`"`) || !strings.Contains(lines[i], `"model_name_or_path":"`+ModelName+`"`) {
			t.Errorf("row %d = %s, want %s", i, lines[i], id)
		}
		if hasPatch := !strings.Contains(lines[i], `"model_patch":""`); hasPatch != (id != "mid__m-5") {
			t.Errorf("row %d patch presence %v: %s", i, hasPatch, lines[i])
		}
	}
	var m Manifest
	readJSON(t, filepath.Join(b.RunRoot, ManifestFile), &m)
	if m.Counts != res.Counts || m.Batch == nil || m.Batch.Counts != res.Counts || len(m.Instances) != 4 {
		t.Fatalf("manifest counts %+v batch %+v", m.Counts, m.Batch)
	}
	if e := m.Instances["mid__m-5"]; e.FailureReasonCode == nil || *e.FailureReasonCode != failcode.MissingImage || e.OutputDir != filepath.Join(b.RunRoot, "mid__m-5") {
		t.Errorf("manifest entry %+v", e)
	}
	order, _ := os.ReadFile(filepath.Join(b.RunRoot, "instance_order.txt"))
	if string(order) != strings.Join(want, "\n")+"\n" {
		t.Errorf("instance_order.txt = %q", order)
	}
	if !strings.Contains(b.Stdout.(*bytes.Buffer).String(), "total=4 success=3 failed=1 incomplete=0") {
		t.Errorf("stdout lacks the counts: %s", b.Stdout)
	}
}

func TestBatchResumeSkipsTerminalInstances(t *testing.T) {
	ids := []string{"acme__one-1", "acme__two-2"}
	b := batchFixture(t, ids, "")
	// An earlier run finished one instance and was interrupted on the other.
	writeStatus := func(id string, st Status) {
		p := PathsFor(filepath.Join(b.RunRoot, id), id)
		if err := os.MkdirAll(p.Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		st.InstanceID = id
		pred, _ := EncodePred(Pred{ModelNameOrPath: ModelName, InstanceID: id})
		if err := writeArtifacts(p.Dir, p, st, nil, pred); err != nil {
			t.Fatal(err)
		}
	}
	writeStatus("acme__one-1", Status{Status: "failed"})
	writeStatus("acme__two-2", Status{Status: "failed", Interrupted: true})
	before, _ := os.ReadFile(PathsFor(filepath.Join(b.RunRoot, "acme__one-1"), "acme__one-1").Status)
	b.Resume = true
	res, err := Batch(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Skipped, ",") != "acme__one-1" {
		t.Fatalf("skipped %v, want only the terminal instance", res.Skipped)
	}
	after, _ := os.ReadFile(PathsFor(filepath.Join(b.RunRoot, "acme__one-1"), "acme__one-1").Status)
	if !bytes.Equal(before, after) {
		t.Error("the skipped instance's status.json changed")
	}
	if res.Counts != (Counts{Total: 2, Success: 1, Failed: 1}) {
		t.Errorf("counts %+v", res.Counts)
	}
	// A line when an instance starts; the success rate covers what the
	// run root holds: the skipped failure and the new success.
	out := b.Stdout.(*bytes.Buffer).String()
	if !strings.Contains(out, "start acme__two-2 (2/2)\n") || strings.Contains(out, "start acme__one-1") {
		t.Errorf("start lines:\n%s", out)
	}
	if !regexp.MustCompile(`acme__two-2 status=success reason=null .* done=2/2 success_rate=50% `).MatchString(out) {
		t.Errorf("progress line of the resumed batch:\n%s", out)
	}
}

func TestSuccessRate(t *testing.T) {
	tests := []struct {
		held map[string]string
		want int
	}{
		{map[string]string{}, 0},
		{map[string]string{"a": "success", "b": "failed", "c": "failed", "d": "incomplete", "e": "failed", "f": "failed"}, 17},                           // 16.7
		{map[string]string{"a": "success", "b": "success", "c": "failed"}, 67},                                                                           // 66.7
		{map[string]string{"a": "success", "b": "failed", "c": "failed", "d": "failed", "e": "failed", "f": "failed", "g": "failed", "h": "failed"}, 13}, // 12.5
		{map[string]string{"a": "success"}, 100},
		{map[string]string{"a": "incomplete"}, 0},
	}
	for _, tc := range tests {
		p := progress{held: tc.held}
		if got := p.successRate(); got != tc.want {
			t.Errorf("successRate(%v) = %d, want %d", tc.held, got, tc.want)
		}
	}
}

func TestShardsMergeToTheWholeBatch(t *testing.T) {
	ids := []string{"acme__a-1", "acme__b-2", "acme__c-3"}
	b := batchFixture(t, ids, "acme__b-2")
	var roots []string
	for i := 1; i <= 2; i++ {
		sb := b
		sb.Shard = Shard{I: i, N: 2}
		sb.RunRoot = filepath.Join(filepath.Dir(b.RunRoot), "shard"+string(rune('0'+i)))
		res, err := Batch(context.Background(), sb)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 && strings.Join(res.Order, ",") != "acme__a-1,acme__c-3" || i == 2 && strings.Join(res.Order, ",") != "acme__b-2" {
			t.Fatalf("shard %d ran %v", i, res.Order)
		}
		roots = append(roots, sb.RunRoot)
	}
	out := filepath.Join(filepath.Dir(b.RunRoot), "merged")
	res, err := Merge(MergeOptions{Out: out, Roots: []string{roots[1], roots[0]}, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Order, ",") != strings.Join(ids, ",") || res.Counts != (Counts{Total: 3, Success: 2, Failed: 1}) {
		t.Fatalf("merged %v %+v", res.Order, res.Counts)
	}
	preds, _ := os.ReadFile(filepath.Join(out, "predictions.jsonl"))
	lines := strings.Split(strings.TrimSpace(string(preds)), "\n")
	for i, id := range ids {
		if !strings.Contains(lines[i], `"instance_id":"`+id+`"`) {
			t.Errorf("row %d = %s, want %s", i, lines[i], id)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "acme__c-3", "acme__c-3.patch")); err != nil {
		t.Errorf("merged instance folder: %v", err)
	}
	var m Manifest
	readJSON(t, filepath.Join(out, ManifestFile), &m)
	if m.Counts != res.Counts || len(m.Merged) != 2 {
		t.Errorf("merged manifest %+v", m)
	}
	// A shard given twice is refused.
	if _, err := Merge(MergeOptions{Out: filepath.Join(filepath.Dir(out), "again"), Roots: []string{roots[0], roots[0], roots[1]}, Now: time.Now()}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("merge of a root given twice: %v", err)
	}
}

// TestShardsStartedTogetherKeepEveryPrediction starts two shards of one
// batch at the same instant, with the same clock and the same results
// folder, as two runners side by side on one host do: each gets its own
// run root, and every prediction of both is there after the merge.
func TestShardsStartedTogetherKeepEveryPrediction(t *testing.T) {
	ids := []string{"acme__p-1", "acme__q-2", "acme__r-3", "acme__s-4"}
	b := batchFixture(t, ids, "")
	results := filepath.Dir(b.RunRoot)
	fixed := time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC)
	b.Instance.Now = func() time.Time { return fixed }
	type outcome struct {
		res BatchResult
		err error
	}
	done := make(chan outcome, 2)
	start := make(chan struct{})
	for i := 1; i <= 2; i++ {
		sb := b
		sb.Shard = Shard{I: i, N: 2}
		sb.RunRoot = RunRootFor(results, fixed)
		sb.Stdout = &bytes.Buffer{}
		go func() {
			<-start
			res, err := Batch(context.Background(), sb)
			done <- outcome{res, err}
		}()
	}
	close(start)
	var roots []string
	for i := 0; i < 2; i++ {
		o := <-done
		if o.err != nil {
			t.Fatal(o.err)
		}
		roots = append(roots, o.res.RunRoot)
		t.Cleanup(func() { noLeaks(t, b.Instance.Docker, LabelManifestDir+"="+o.res.RunRoot) })
	}
	if roots[0] == roots[1] {
		t.Fatalf("both shards wrote into %s", roots[0])
	}
	for _, r := range roots {
		preds, err := os.ReadFile(filepath.Join(r, "predictions.jsonl"))
		if err != nil || strings.Count(string(preds), "\n") != 2 {
			t.Fatalf("%s: predictions %q %v, want 2 rows", r, preds, err)
		}
	}
	res, err := Merge(MergeOptions{Out: filepath.Join(results, "merged"), Roots: roots, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts != (Counts{Total: 4, Success: 4}) {
		t.Errorf("merged counts %+v, want 4 successes", res.Counts)
	}
	preds, _ := os.ReadFile(filepath.Join(results, "merged", "predictions.jsonl"))
	for _, id := range ids {
		if !strings.Contains(string(preds), `"instance_id":"`+id+`"`) || !strings.Contains(string(preds), `"model_patch":"diff`) {
			t.Errorf("merged predictions lack %s with its patch:\n%s", id, preds)
		}
	}
}

// TestResumeRetriesFailedInstances: a batch whose endpoint failed (every
// instance runtime_error) is resumed once the endpoint is back. A plain
// resume skips them all; --retry-failed runtime_error runs them again and
// leaves the missing-image failure alone; all retries that one too.
func TestResumeRetriesFailedInstances(t *testing.T) {
	ids := []string{"acme__r-1", "acme__r-2", "acme__gone-3"}
	b := batchFixture(t, ids, "acme__gone-3")
	b.Instance.Env = []string{"FAKE_CODEX_SCENARIO=crash"}
	res, err := Batch(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts != (Counts{Total: 3, Failed: 3}) {
		t.Fatalf("first run %+v", res.Counts)
	}
	resume := b
	resume.Resume = true
	resume.Instance.Env = []string{"FAKE_CODEX_SCENARIO=success"}
	resume.Stdout = &bytes.Buffer{}
	res, err = Batch(context.Background(), resume)
	if err != nil || len(res.Skipped) != 3 {
		t.Fatalf("plain resume skipped %v (%v), want all 3", res.Skipped, err)
	}
	resume.RetryFailed = string(failcode.RuntimeError)
	res, err = Batch(context.Background(), resume)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Skipped, ",") != "acme__gone-3" || res.Counts != (Counts{Total: 3, Success: 2, Failed: 1}) {
		t.Fatalf("retry of runtime errors: skipped %v counts %+v", res.Skipped, res.Counts)
	}
	resume.RetryFailed = RetryAllFailures
	res, err = Batch(context.Background(), resume)
	if err != nil || len(res.Skipped) != 2 || res.Skipped[0] != "acme__r-1" {
		t.Fatalf("retry of all failures: skipped %v (%v), want the two successes", res.Skipped, err)
	}
}

func TestFilterAndSlice(t *testing.T) {
	ids := []string{"a__x-1", "a__x-2", "b__y-1", "b__y-2", "b__y-3"}
	tests := []struct {
		filter, slice string
		want          string
		wantErr       string
	}{
		{"", "", "a__x-1 a__x-2 b__y-1 b__y-2 b__y-3", ""},
		{"^b__", "", "b__y-1 b__y-2 b__y-3", ""},
		{"^b__", "1:", "b__y-2 b__y-3", ""},
		{"", ":2", "a__x-1 a__x-2", ""},
		{"", "3:99", "b__y-2 b__y-3", ""},
		{"", "2:1", "", "END must be greater than START"},
		{"", "x:1", "", `"x" is not a whole number`},
		{"", "5", "", "expected START:END"},
	}
	for _, tc := range tests {
		b := BatchOptions{}
		if tc.filter != "" {
			b.Filter = regexp.MustCompile(tc.filter)
		}
		if tc.slice != "" {
			sl, err := ParseSlice(tc.slice)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("slice %q: err %v, want %q", tc.slice, err, tc.wantErr)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			b.Slice = sl
		}
		if got := strings.Join(b.narrow(ids), " "); got != tc.want {
			t.Errorf("filter %q slice %q: %s, want %s", tc.filter, tc.slice, got, tc.want)
		}
	}
}

// TestBatchStopsOnAFailingEndpoint: every instance fails with
// runtime_error. While the endpoint preflight answers, the failures are
// the instances' own and the batch goes on; when it fails too, the batch
// stops after three, says how to continue, and leaves the rest not run.
// Patches that fail the patch check are the agent's failures, never the
// endpoint's: they do not stop the batch, whatever the endpoint does.
func TestBatchStopsOnAFailingEndpoint(t *testing.T) {
	ids := []string{"acme__e-1", "acme__e-2", "acme__e-3", "acme__e-4", "acme__e-5"}
	down := errors.New("dial tcp 127.0.0.1:8000: connect: connection refused")
	for _, tc := range []struct {
		name     string
		scenario string
		endpoint error
		ran      int
		stops    bool
	}{
		{"endpoint answers", "crash", nil, 5, false},
		{"endpoint down", "crash", down, 3, true},
		{"predictions the patch check refuses (Latin-1), endpoint down", "latin1", down, 5, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := batchFixture(t, ids, "")
			b.Instance.Env = []string{"FAKE_CODEX_SCENARIO=" + tc.scenario}
			b.Preflight = func(context.Context) error { return tc.endpoint }
			var out bytes.Buffer
			b.Stdout = &out
			calls := 0
			pre := b.Preflight
			b.Preflight = func(ctx context.Context) error {
				// The endpoint answered when the batch began.
				if calls++; calls == 1 {
					return nil
				}
				return pre(ctx)
			}
			res, err := Batch(context.Background(), b)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(out.String(), "status=failed reason=runtime_error"); n != tc.ran {
				t.Fatalf("%d instances ran, want %d:\n%s", n, tc.ran, out.String())
			}
			if res.Counts.Total != 5 || res.Counts.Failed != 5 {
				t.Errorf("counts %+v: the instances not run count as failed", res.Counts)
			}
			stopped := strings.Contains(out.String(), "batch stopped after 3 instances in a row failed with runtime_error and the endpoint preflight fails: dial tcp")
			if stopped != tc.stops || (tc.stops && !strings.Contains(res.Stopped, "2 instance(s) not run (continue with --resume")) {
				t.Errorf("stopped %v, res.Stopped %q:\n%s", stopped, res.Stopped, out.String())
			}
			var m Manifest
			readJSON(t, filepath.Join(b.RunRoot, ManifestFile), &m)
			if (m.Batch.Stopped != "") != tc.stops {
				t.Errorf("manifest batch.stopped %q", m.Batch.Stopped)
			}
			if m.Counts != m.Batch.Counts || m.Batch.Counts != res.Counts {
				t.Errorf("counts %+v, batch.counts %+v, printed %+v: they must agree", m.Counts, m.Batch.Counts, res.Counts)
			}
			if tc.stops && res.Counts.NotRun != 2 {
				t.Errorf("counts %+v, want the 2 instances not run as not_run", res.Counts)
			}
			if !tc.stops {
				return
			}
			// Resumed once the endpoint is back: the stop stays on record.
			b.Resume, b.RetryFailed = true, string(failcode.RuntimeError)
			b.Instance.Env = []string{"FAKE_CODEX_SCENARIO=success"}
			b.Preflight = func(context.Context) error { return nil }
			out.Reset()
			res, err = Batch(context.Background(), b)
			if err != nil || res.Counts != (Counts{Total: 5, Success: 5}) {
				t.Fatalf("resume: %+v %v\n%s", res.Counts, err, out.String())
			}
			readJSON(t, filepath.Join(b.RunRoot, ManifestFile), &m)
			if !strings.Contains(m.Batch.Stopped, "stopped after 3 instances") || len(m.Batch.Resumes) != 1 || m.Batch.Resumes[0].Stopped != "" {
				t.Errorf("stop history after a resume: batch.stopped %q, resumes %+v", m.Batch.Stopped, m.Batch.Resumes)
			}
			if m.Counts != m.Batch.Counts || m.Counts != res.Counts {
				t.Errorf("after the resume: counts %+v, batch.counts %+v, printed %+v", m.Counts, m.Batch.Counts, res.Counts)
			}
		})
	}
}

// TestBatchReportsEachInstance: OnInstance sees the list grow by one
// after every instance, skipped ones included, so a table rewritten from
// it shows what a cancelled batch did.
func TestBatchReportsEachInstance(t *testing.T) {
	ids := []string{"acme__rep-1", "acme__rep-2", "acme__rep-3"}
	b := batchFixture(t, ids, "acme__rep-2")
	var seen []int
	b.OnInstance = func(done []InstanceReport, total int) {
		if total != 3 {
			t.Errorf("total %d", total)
		}
		seen = append(seen, len(done))
	}
	if _, err := Batch(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(seen) != "[1 2 3]" {
		t.Errorf("OnInstance saw %v, want [1 2 3]", seen)
	}
}
