package action

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/benchgate/benchgate/internal/bench"
	"github.com/benchgate/benchgate/internal/qaaudit/audit"
	"github.com/benchgate/benchgate/internal/qaaudit/qreport"
	"github.com/benchgate/benchgate/internal/report"
	"github.com/benchgate/benchgate/internal/swebench"
	"github.com/benchgate/benchgate/internal/verify"
)

// filesResult is the Result a real run of mode would have returned for
// the files a stand-in mode wrote (dir is the working folder, args the
// argv it got), read back through the modes' own types. Tests that stand
// in for a mode write files as the mode does; this hands the adapter what
// the mode itself would have handed it.
func filesResult(t testing.TB, mode, dir string, args []string) *Result {
	t.Helper()
	out := ""
	if len(args) > 1 {
		out = args[len(args)-1]
	}
	switch mode {
	case "report":
		r := &report.Result{}
		for i := 0; i+1 < len(args); i++ {
			switch args[i] {
			case "--suite-jsonl":
				r.SuitePaths = append(r.SuitePaths, resolve(dir, args[i+1]))
			case "--summary-json":
				r.SummaryJSON = args[i+1]
			case "--summary-md":
				r.SummaryMD = args[i+1]
			}
		}
		if b, err := os.ReadFile(r.SummaryJSON); err == nil {
			var sum struct {
				GateV2 report.GateV2 `json:"gateV2"`
			}
			if err := json.Unmarshal(b, &sum); err != nil {
				t.Fatalf("%s: %v", r.SummaryJSON, err)
			}
			r.Summary = &report.Summary{}
			r.Gate = report.GateResult{Profile: sum.GateV2.Profile, Passed: sum.GateV2.Passed, Checks: sum.GateV2.Checks}
		}
		return &Result{Report: r}
	case "set":
		if _, err := os.Stat(filepath.Join(out, "tracking.json")); err != nil {
			return &Result{}
		}
		return &Result{Set: setResultOf(t, out)}
	case "ordered":
		o := &verify.OrderedResult{SummaryJSON: filepath.Join(out, "mini-summary.json"), SummaryMD: filepath.Join(out, "mini-summary.md")}
		paths, _ := filepath.Glob(filepath.Join(out, "*", "tracking.json"))
		// The sets ran in the order their tracking files were written.
		sort.SliceStable(paths, func(i, j int) bool {
			a, _ := os.Stat(paths[i])
			b, _ := os.Stat(paths[j])
			return a.ModTime().Before(b.ModTime())
		})
		for _, p := range paths {
			o.Sets = append(o.Sets, setResultOf(t, filepath.Dir(p)))
		}
		return &Result{Ordered: o}
	case "swebench-batch":
		manifests, _ := filepath.Glob(filepath.Join(dir, "results", "phase5", "ralph-codex-local", "*", swebench.ManifestFile))
		if len(manifests) == 0 {
			return &Result{}
		}
		root := filepath.Dir(manifests[0])
		b := &swebench.BatchResult{RunRoot: root, Manifest: manifests[0], Predictions: filepath.Join(root, "predictions.jsonl")}
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			p := swebench.PathsFor(filepath.Join(root, e.Name()), e.Name())
			st, err := swebench.ReadStatus(p.Status)
			b.Order = append(b.Order, e.Name())
			b.Instances = append(b.Instances, swebench.InstanceOutcome{ID: e.Name(), Paths: p, Status: st, Err: err})
			b.Counts.Total++
			switch st.Status {
			case "success":
				b.Counts.Success++
			case "incomplete":
				b.Counts.Incomplete++
			default:
				b.Counts.Failed++
			}
		}
		return &Result{Batch: b}
	case "qa-audit":
		path := filepath.Join(out, "quality_report.json")
		data, err := os.ReadFile(path)
		if err != nil {
			return &Result{Audit: &audit.Summary{}}
		}
		var rep qreport.Report
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return &Result{Audit: &audit.Summary{Result: &audit.Result{Report: &rep, ReportPath: path}}}
	}
	return &Result{}
}

// setResultOf reads a set folder's tracking.json through verify's type.
func setResultOf(t testing.TB, dir string) *verify.SetResult {
	t.Helper()
	path := filepath.Join(dir, "tracking.json")
	tr, err := verify.ReadTracking(path)
	if err != nil {
		t.Fatal(err)
	}
	s := &verify.SetResult{Tracking: tr, TrackingPath: path, OutDir: dir,
		SummaryJSON: filepath.Join(dir, "latest-summary.json"), SummaryMD: filepath.Join(dir, "latest-summary.md")}
	for _, m := range bench.Modes {
		s.SuitePaths = append(s.SuitePaths, filepath.Join(dir, m+"-suite.jsonl"))
	}
	return s
}
