package swebench

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// shardSpec is a run root as a shard batch leaves it.
type shardSpec struct {
	// order is the batch scope; done maps the instances that finished
	// to their status.
	order []string
	done  map[string]string
	// shard is k/n, or empty for an unsharded batch.
	shard string
	// start is the batch's start time (kept by resumes); updated the
	// manifest's last write.
	start, updated time.Time
	resumes        int
	args           map[string]any
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// shardRoot writes a run root as a shard batch leaves it: a manifest
// whose batch scope is order, and artifacts for the instances in done.
// Failed instances have an error_log into their folder as the run
// recorded it, under ranAt (the folder the batch ran in, which need not
// be root: artifacts are downloaded elsewhere).
func shardRoot(t *testing.T, root, ranAt string, s shardSpec) {
	t.Helper()
	if ranAt == "" {
		ranAt = root
	}
	if s.start.IsZero() {
		s.start = t0
	}
	if s.updated.IsZero() {
		s.updated = s.start.Add(time.Minute)
	}
	for id, status := range s.done {
		p := PathsFor(filepath.Join(root, id), id)
		patch := ""
		if status == "success" {
			patch = "diff --git a/x b/x\n" + id + "\n"
		}
		st := map[string]any{"instance_id": id, "status": status, "failure_reason_code": nil, "failure_reason_detail": "", "error_log": "", "usage": map[string]any{"input_tokens": 7}}
		if status == "failed" {
			st["failure_reason_code"], st["failure_reason_detail"] = "blocked", "the agent moved the plan documents"
			st["error_log"] = filepath.Join(ranAt, id, "logs", "runner.log")
			writeTestFile(t, filepath.Join(p.Logs, "runner.log"), "log of "+id+"\n")
		}
		for path, v := range map[string]any{
			p.Status: st,
			// A failed instance's .pred carries no patch, as the batch writes it.
			p.Pred: Pred{ModelNameOrPath: ModelName, InstanceID: id, ModelPatch: patch},
		} {
			b, _ := json.Marshal(v)
			writeTestFile(t, path, string(b))
		}
	}
	var resumes []Resume
	for i := 0; i < s.resumes; i++ {
		resumes = append(resumes, Resume{Args: map[string]any{"resume": ranAt}, StartTime: s.start.Add(time.Duration(i+1) * time.Hour)})
	}
	err := UpdateManifest(root, s.updated, func(m *Manifest) {
		for id, status := range s.done {
			m.Instances[id] = InstanceEntry{InstanceID: id, Status: status, OutputDir: filepath.Join(ranAt, id)}
		}
		m.Batch = &BatchInfo{InstanceOrder: s.order, Shard: s.shard, StartTime: s.start, Args: s.args, Resumes: resumes}
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func merge(t *testing.T, out string, allowMissing bool, roots ...string) (MergeResult, error) {
	t.Helper()
	return Merge(MergeOptions{Out: out, Roots: roots, AllowMissingShards: allowMissing, Now: t0.Add(24 * time.Hour)})
}

func TestMergeKeepsInstancesAnInterruptedShardNeverReached(t *testing.T) {
	dir := t.TempDir()
	r1, r2 := filepath.Join(dir, "shard1"), filepath.Join(dir, "shard2")
	// Shard 1 was interrupted after its first instance.
	shardRoot(t, r1, "", shardSpec{order: []string{"acme__a-1", "acme__c-3"}, done: map[string]string{"acme__a-1": "success"}, shard: "1/2"})
	shardRoot(t, r2, "", shardSpec{order: []string{"acme__b-2"}, done: map[string]string{"acme__b-2": "incomplete"}, shard: "2/2"})
	out := filepath.Join(dir, "merged")
	res, err := merge(t, out, false, r1, r2)
	if err != nil {
		t.Fatal(err)
	}
	want := "acme__a-1,acme__b-2,acme__c-3"
	if strings.Join(res.Order, ",") != want || res.Counts != (Counts{Total: 3, Success: 1, Failed: 1, Incomplete: 1, NotRun: 1}) {
		t.Fatalf("merged %v %+v, want %s with the unreached instance counted failed", res.Order, res.Counts, want)
	}
	preds, err := os.ReadFile(filepath.Join(out, "predictions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(preds)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[2], `"instance_id":"acme__c-3","model_patch":""`) {
		t.Fatalf("predictions.jsonl:\n%s", preds)
	}
	var m Manifest
	readJSON(t, filepath.Join(out, ManifestFile), &m)
	// The printed counts are the manifest's, whichever of its counts.
	if m.Counts != res.Counts || m.Batch.Counts != res.Counts || len(m.Instances) != 3 {
		t.Errorf("manifest counts %+v, batch counts %+v, %d entries; merge printed %+v", m.Counts, m.Batch.Counts, len(m.Instances), res.Counts)
	}
	if e := m.Instances["acme__c-3"]; e.Status != "failed" || !strings.Contains(e.FailureReasonDetail, "never started") {
		t.Errorf("unreached instance entry %+v", e)
	}
}

// TestMergeChecksTheShards: each run root's manifest names its shard
// k/n; a merge needs each k of 1..n once. The cases were worked out by
// hand from the rule, including ones the code does not single out.
func TestMergeChecksTheShards(t *testing.T) {
	a, b, c := []string{"acme__a-1", "acme__c-3"}, []string{"acme__b-2"}, []string{"acme__d-4"}
	ok := map[string]string{}
	cases := []struct {
		name         string
		roots        []shardSpec
		allowMissing bool
		wantErr      string // empty: the merge succeeds
		wantOrder    string
		wantMissing  string
	}{
		{name: "both shards", roots: []shardSpec{{order: a, shard: "1/2"}, {order: b, shard: "2/2"}}, wantOrder: "acme__a-1,acme__b-2,acme__c-3"},
		{name: "one shard of two", roots: []shardSpec{{order: a, shard: "1/2"}}, wantErr: "missing shard 2/2 of 2"},
		{name: "shard 2 of 3 alone names both missing", roots: []shardSpec{{order: b, shard: "2/3"}}, wantErr: "missing shard 1/3, 3/3 of 3"},
		{name: "one shard of two, allowed", roots: []shardSpec{{order: a, shard: "1/2"}}, allowMissing: true, wantOrder: "acme__a-1,acme__c-3", wantMissing: "2/2"},
		{name: "two batches of one shard", roots: []shardSpec{{order: a, shard: "1/2"}, {order: c, shard: "1/2", start: t0.Add(time.Hour)}, {order: b, shard: "2/2"}}, wantErr: "duplicated shard 1/2"},
		{name: "a duplicate is refused even when missing shards are allowed", roots: []shardSpec{{order: a, shard: "1/3"}, {order: c, shard: "1/3", start: t0.Add(time.Hour)}}, allowMissing: true, wantErr: "duplicated shard 1/3"},
		{name: "shards of different splits", roots: []shardSpec{{order: a, shard: "1/2"}, {order: b, shard: "2/3"}}, wantErr: "different splits"},
		{name: "a sharded and an unsharded root", roots: []shardSpec{{order: a, shard: "1/2"}, {order: b}}, wantErr: "ran no shard"},
		{name: "unsharded roots", roots: []shardSpec{{order: a}, {order: b}}, wantOrder: "acme__a-1,acme__b-2,acme__c-3"},
		{name: "unsharded roots that overlap", roots: []shardSpec{{order: a}, {order: a, start: t0.Add(time.Hour)}}, wantErr: "shards overlap"},
		{name: "a single shard of one", roots: []shardSpec{{order: b, shard: "1/1"}}, wantOrder: "acme__b-2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var roots []string
			for i, s := range tc.roots {
				s.done = ok
				root := filepath.Join(dir, "root"+string(rune('a'+i)))
				shardRoot(t, root, "", s)
				roots = append(roots, root)
			}
			out := filepath.Join(dir, "merged")
			res, err := merge(t, out, tc.allowMissing, roots...)
			if tc.wantErr != "" {
				var ue *UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want a usage error with %q", err, tc.wantErr)
				}
				if _, serr := os.Stat(out); !errors.Is(serr, os.ErrNotExist) {
					t.Errorf("a refused merge left %s", out)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(res.Order, ","); got != tc.wantOrder || strings.Join(res.Missing, ",") != tc.wantMissing {
				t.Errorf("order %s missing %v, want %s and %q", got, res.Missing, tc.wantOrder, tc.wantMissing)
			}
			var m Manifest
			readJSON(t, filepath.Join(out, ManifestFile), &m)
			if strings.Join(m.MissingShards, ",") != tc.wantMissing || len(m.Shards) != len(tc.roots) {
				t.Errorf("manifest missing_shards %v, %d shards", m.MissingShards, len(m.Shards))
			}
		})
	}
}

// TestMergeTakesTheLatestStateOfARerunShard: a re-run job resumed shard
// 2 from its earlier artifact, so both attempts' run roots are given; they
// are one batch (same start), and the newer one is merged.
func TestMergeTakesTheLatestStateOfARerunShard(t *testing.T) {
	dir := t.TempDir()
	r1 := filepath.Join(dir, "swebench-shard-1-attempt1", "20260102T030405Z")
	old := filepath.Join(dir, "swebench-shard-2-attempt1", "20260102T030405Z")
	newer := filepath.Join(dir, "swebench-shard-2-attempt2", "20260102T030405Z")
	shardRoot(t, r1, "/runner/a/results/20260102T030405Z", shardSpec{order: []string{"acme__a-1"}, done: map[string]string{"acme__a-1": "success"}, shard: "1/2", args: map[string]any{"max_loops": 50}})
	shardRoot(t, old, "/runner/b/results/20260102T030405Z", shardSpec{order: []string{"acme__b-2", "acme__d-4"}, done: map[string]string{"acme__b-2": "failed"}, shard: "2/2"})
	shardRoot(t, newer, "/runner/c/results/20260102T030405Z", shardSpec{order: []string{"acme__b-2", "acme__d-4"}, done: map[string]string{"acme__b-2": "failed", "acme__d-4": "success"}, shard: "2/2", updated: t0.Add(2 * time.Hour), resumes: 1})
	out := filepath.Join(dir, "merged")
	// Download order is not attempt order.
	res, err := merge(t, out, false, newer, r1, old)
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts != (Counts{Total: 3, Success: 2, Failed: 1}) {
		t.Fatalf("counts %+v, want the second attempt's success of acme__d-4", res.Counts)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Path != old || !strings.Contains(res.Skipped[0].Reason, "earlier state of shard 2/2") {
		t.Errorf("skipped %+v, want the first attempt of shard 2 named", res.Skipped)
	}
	var m Manifest
	readJSON(t, filepath.Join(out, ManifestFile), &m)
	if len(m.Shards) != 2 || m.Shards[0].Shard != "1/2" || m.Shards[0].Args["max_loops"] != float64(50) || m.Shards[1].Root != newer || len(m.Shards[1].Resumes) != 1 {
		t.Errorf("manifest shards %+v, want both shards with their arguments and resumes", m.Shards)
	}
	// error_log pointed into the runner's folder; now into the merge.
	e := m.Instances["acme__b-2"]
	wantLog := filepath.Join(out, "acme__b-2", "logs", "runner.log")
	var st Status
	readJSON(t, PathsFor(filepath.Join(out, "acme__b-2"), "acme__b-2").Status, &st)
	if e.ErrorLog != wantLog || st.ErrorLog != wantLog || e.OutputDir != filepath.Join(out, "acme__b-2") {
		t.Errorf("error_log entry %q, status %q, output_dir %q; want %s in both", e.ErrorLog, st.ErrorLog, e.OutputDir, wantLog)
	}
	if b, err := os.ReadFile(wantLog); err != nil || string(b) != "log of acme__b-2\n" {
		t.Errorf("merged runner.log: %q %v", b, err)
	}
	// The rest of the status file is kept.
	if st.Usage.InputTokens != 7 || st.FailureReasonCode == nil || *st.FailureReasonCode != "blocked" {
		t.Errorf("merged status lost fields: %+v", st)
	}
}

// TestMergeOutputFolder: an existing output is replaced only when it is
// an earlier merge, and whole (no manifest of one merge beside the
// predictions of another); anything else there is refused untouched.
func TestMergeOutputFolder(t *testing.T) {
	dir := t.TempDir()
	ids := []string{"acme__a-1", "acme__b-2", "acme__c-3", "acme__d-4"}
	full := filepath.Join(dir, "full")
	done := map[string]string{}
	for _, id := range ids {
		done[id] = "success"
	}
	shardRoot(t, full, "", shardSpec{order: ids, done: done})
	half := filepath.Join(dir, "half")
	shardRoot(t, half, "", shardSpec{order: ids[:2], done: map[string]string{ids[0]: "success", ids[1]: "success"}})
	out := filepath.Join(dir, "merged")
	if _, err := merge(t, out, false, full); err != nil {
		t.Fatal(err)
	}
	res, err := merge(t, out, false, half)
	if err != nil {
		t.Fatalf("re-merge into an earlier merge's output: %v", err)
	}
	var m Manifest
	readJSON(t, filepath.Join(out, ManifestFile), &m)
	preds, _ := os.ReadFile(filepath.Join(out, "predictions.jsonl"))
	if n := strings.Count(string(preds), "\n"); n != 2 || len(m.Instances) != 2 || res.Counts.Total != 2 {
		t.Errorf("after replacing: %d predictions, %d manifest entries, total %d; want 2 of each", n, len(m.Instances), res.Counts.Total)
	}
	if _, err := os.Stat(filepath.Join(out, "acme__c-3")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the earlier merge's instance folder is still there: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".merged.merge-*")); len(left) > 0 {
		t.Errorf("temporary folders left: %v", left)
	}

	// A linked instance folder planted in the earlier merge's output is
	// never written through: the new merge is built beside it and
	// renamed into place.
	host := filepath.Join(dir, "host")
	if err := os.Mkdir(host, 0o755); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(out, ids[0])
	if err := os.RemoveAll(planted); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(host, planted); err != nil {
		t.Fatal(err)
	}
	if _, err := merge(t, out, false, half); err != nil {
		t.Fatalf("re-merge over a planted link: %v", err)
	}
	if left, _ := os.ReadDir(host); len(left) != 0 {
		t.Errorf("the merge wrote through the planted link into %s: %v", host, left)
	}
	if info, err := os.Lstat(planted); err != nil || !info.IsDir() {
		t.Errorf("%s after the merge: %v %v, want a real folder", planted, info, err)
	}

	other := filepath.Join(dir, "mine")
	writeTestFile(t, filepath.Join(other, "notes.txt"), "keep me\n")
	for _, o := range []string{other, full, filepath.Join(half, "sub"), dir} {
		_, err := merge(t, o, false, half)
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("merge into %s: %v, want a usage error", o, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(other, "notes.txt")); string(b) != "keep me\n" {
		t.Errorf("a refused merge touched %s", other)
	}
	// An empty folder is fine.
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := merge(t, empty, false, half); err != nil {
		t.Errorf("merge into an empty folder: %v", err)
	}
}

// TestMergeSkipsWhatItMustNotTake: an agent (or a hand-made artifact)
// left a linked instance folder, a linked log folder, a FIFO, an
// oversize .pred and an error_log outside the instance; merge takes none
// of them, names each with its reason, and its counts are the manifest's.
func TestMergeSkipsWhatItMustNotTake(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "host")
	writeTestFile(t, filepath.Join(secret, "id_rsa"), "PRIVATE KEY\n")
	root := filepath.Join(dir, "shard")
	ids := []string{"acme__big-1", "acme__link-2", "acme__log-3", "acme__ok-4"}
	shardRoot(t, root, "", shardSpec{order: ids, done: map[string]string{"acme__big-1": "success", "acme__log-3": "failed", "acme__ok-4": "success"}})
	// A linked instance folder.
	if err := os.Symlink(secret, filepath.Join(root, "acme__link-2")); err != nil {
		t.Fatal(err)
	}
	// A 40 MB prediction.
	big := PathsFor(filepath.Join(root, "acme__big-1"), "acme__big-1").Pred
	if err := os.Truncate(big, 40<<20); err != nil {
		t.Fatal(err)
	}
	// error_log pointing at a host file, a linked folder and a FIFO.
	logSt := PathsFor(filepath.Join(root, "acme__log-3"), "acme__log-3").Status
	writeTestFile(t, logSt, `{"instance_id":"acme__log-3","status":"failed","failure_reason_code":"blocked","error_log":"`+filepath.Join(secret, "id_rsa")+`"}`)
	if err := os.Symlink(secret, filepath.Join(root, "acme__ok-4", "plans")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "acme__ok-4", "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "merged")
	res, err := merge(t, out, false, root)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, s := range res.Skipped {
		rel, _ := filepath.Rel(root, s.Path)
		reasons[rel] = s.Reason
	}
	for path, want := range map[string]string{
		"acme__link-2":                        "symbolic link",
		"acme__big-1/acme__big-1.pred":        "over the",
		"acme__log-3/acme__log-3.status.json": "outside the instance folder",
		"acme__ok-4/plans":                    "symbolic link",
		"acme__ok-4/pipe":                     "FIFO",
	} {
		if !strings.Contains(reasons[path], want) {
			t.Errorf("skipped %s: %q, want a reason with %q (all: %v)", path, reasons[path], want, reasons)
		}
	}
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !d.Type().IsRegular() {
			t.Errorf("merged %s is a %s", p, d.Type())
		}
		if err == nil && d.Type().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "PRIVATE KEY") {
				t.Errorf("merged %s holds the host file", p)
			}
		}
		return nil
	})
	var m Manifest
	readJSON(t, filepath.Join(out, ManifestFile), &m)
	// acme__big-1's success lost its prediction, so it is not a success
	// of the merge; acme__link-2 has no status the merge could read.
	if m.Counts != res.Counts || res.Counts != (Counts{Total: 4, Success: 1, Failed: 3, NotRun: 1}) || len(m.MergeSkipped) != len(res.Skipped) {
		t.Errorf("merge counts %+v, manifest %+v; skipped %d in the manifest of %d", res.Counts, m.Counts, len(m.MergeSkipped), len(res.Skipped))
	}
	if e := m.Instances["acme__log-3"]; e.ErrorLog != "" {
		t.Errorf("error_log carried over: %q", e.ErrorLog)
	}
	if e := m.Instances["acme__big-1"]; e.Status != "failed" || !strings.Contains(e.FailureReasonDetail, "acme__big-1.pred was not merged") {
		t.Errorf("the success without its prediction: %+v", e)
	}
	preds, _ := os.ReadFile(filepath.Join(out, "predictions.jsonl"))
	if !strings.Contains(string(preds), `"instance_id":"acme__big-1","model_patch":""`) {
		t.Errorf("the oversize prediction is not an empty row:\n%.300s", preds)
	}
}

func TestMergeRefusesToWriteIntoARunRoot(t *testing.T) {
	dir := t.TempDir()
	r1, r2 := filepath.Join(dir, "shard1"), filepath.Join(dir, "shard2")
	shardRoot(t, r1, "", shardSpec{order: []string{"acme__a-1"}, done: map[string]string{"acme__a-1": "success"}})
	shardRoot(t, r2, "", shardSpec{order: []string{"acme__b-2"}, done: map[string]string{"acme__b-2": "success"}})
	pred := PathsFor(filepath.Join(r1, "acme__a-1"), "acme__a-1").Pred
	before, err := os.ReadFile(pred)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{r1, r1 + "/", filepath.Join(dir, "shard2", "..", "shard1")} {
		_, err := merge(t, out, false, r1, r2)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "one of the run roots") {
			t.Errorf("merge into %s: %v, want a usage error", out, err)
		}
	}
	if after, _ := os.ReadFile(pred); string(after) != string(before) {
		t.Errorf("%s changed: %q", pred, after)
	}
}

// TestScopeDiff: shards of one batch agree wherever their instance file
// lay; another filter, slice, file or set of IDs is named.
func TestScopeDiff(t *testing.T) {
	run := func(shard string, args map[string]any, scope *ScopeInfo) *shardRun {
		sh, _ := ParseShard(shard)
		return &shardRun{root: "/r/" + shard[:1], shard: sh, m: Manifest{Batch: &BatchInfo{Args: args, Scope: scope}}}
	}
	scope := func(n int, sum string) *ScopeInfo { return &ScopeInfo{Instances: n, IDsSHA256: sum} }
	tests := []struct {
		name string
		a, b *shardRun
		want []string
	}{
		{"same file at other paths", run("1/2", map[string]any{"instance_file": "/a/ids.txt"}, nil), run("2/2", map[string]any{"instance_file": "/b/ids.txt"}, nil), nil},
		{"same scope recorded", run("1/2", map[string]any{"instance_file": "/a/x.txt"}, scope(5, "aa")), run("2/2", map[string]any{"instance_file": "/b/y.txt"}, scope(5, "aa")), nil},
		{"another file, no scope recorded", run("1/2", map[string]any{"instance_file": "/a/x.txt"}, nil), run("2/2", map[string]any{"instance_file": "/a/y.txt"}, nil),
			[]string{`has --instance-file "x.txt", shard 2/2 (/r/2) has --instance-file "y.txt"`}},
		{"an extra filter", run("1/2", map[string]any{}, scope(5, "aa")), run("2/2", map[string]any{"filter": "^a"}, scope(4, "bb")),
			[]string{`has --filter none, shard 2/2 (/r/2) has --filter "^a"`, "chose 5 instances (the whole split, ids sha256 aa), shard 2/2 (/r/2) chose 4"}},
		{"another slice", run("1/2", map[string]any{"slice": ":3"}, nil), run("2/2", map[string]any{"slice": ":4"}, nil), []string{`has --slice ":3", shard 2/2 (/r/2) has --slice ":4"`}},
	}
	for _, tc := range tests {
		got := scopeDiff(tc.a, tc.b)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %q, want %d differences", tc.name, got, len(tc.want))
			continue
		}
		for i := range got {
			if !strings.Contains(got[i], tc.want[i]) {
				t.Errorf("%s: %q lacks %q", tc.name, got[i], tc.want[i])
			}
		}
	}
}
