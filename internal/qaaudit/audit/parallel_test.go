package audit_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/qaaudit/audit"
	"github.com/benchgate/benchgate/internal/qaaudit/pipeline"
	"github.com/benchgate/benchgate/internal/qaaudit/qreport"
	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// gauge wraps an auditor: it counts the cases in flight, holds every case
// until `want` are in flight at once (or a second has passed), and makes
// earlier cases finish later, so that results arrive out of order.
type gauge struct {
	next     audit.CaseAuditor
	want     int
	index    map[string]int
	inflight atomic.Int32
	peak     atomic.Int32
	calls    atomic.Int32
	full     chan struct{}
	once     sync.Once
	// cancelAt, when > 0, cancels the run as the cancelAt-th case starts.
	cancelAt int32
	cancel   context.CancelFunc
	// afterCancel counts cases started after the cancellation.
	afterCancel atomic.Int32
	cancelled   atomic.Bool
}

func (g *gauge) AuditCase(ctx context.Context, c *questions.Case) pipeline.CaseResult {
	if g.cancelled.Load() {
		g.afterCancel.Add(1)
	}
	n := g.calls.Add(1)
	in := g.inflight.Add(1)
	defer g.inflight.Add(-1)
	for p := g.peak.Load(); in > p && !g.peak.CompareAndSwap(p, in); p = g.peak.Load() {
	}
	if int(in) >= g.want {
		g.once.Do(func() { close(g.full) })
	}
	select {
	case <-g.full:
	case <-time.After(time.Second):
	}
	if g.cancelAt > 0 && n == g.cancelAt {
		g.cancelled.Store(true)
		g.cancel()
	}
	time.Sleep(time.Duration(len(g.index)-g.index[c.ID]) * time.Millisecond)
	return g.next.AuditCase(ctx, c)
}

func loadBeforeFixes(t *testing.T) ([]*questions.File, map[string]questions.Fix, string) {
	t.Helper()
	data := filepath.Join(testenv.RepoRoot(t), "testdata", "adk")
	repo := t.TempDir()
	src, err := os.ReadFile(filepath.Join(data, "configure_adk_features_mc.benchmark.before-fixes-d7e1048.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(repo, "benchmark.yaml")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := questions.Load(path, questions.Options{SkipSnippets: true})
	if err != nil {
		t.Fatal(err)
	}
	after, err := questions.Load(filepath.Join(data, "configure_adk_features_mc.benchmark.yaml"), questions.Options{SkipSnippets: true})
	if err != nil {
		t.Fatal(err)
	}
	files, err := audit.LoadAll([]string{path}, repo)
	if err != nil {
		t.Fatal(err)
	}
	fixes := humanFixes(t, before, after)
	for id := range fixes {
		if c, ok := files[0].Case(id); !ok || !c.OK() {
			delete(fixes, id)
		}
	}
	return files, fixes, repo
}

// comparable strips what differs from run to run (times, the temporary
// folder) from a report.
func comparable(t *testing.T, rep *qreport.Report, repo string) string {
	t.Helper()
	for i := range rep.Cases {
		rep.Cases[i].Duration = 0
		for j := range rep.Cases[i].Attempts {
			rep.Cases[i].Attempts[j].Duration = 0
		}
	}
	rep.Totals.Duration = 0
	data, err := json.Marshal(struct {
		Cases  []qreport.Case
		Totals qreport.Totals
	}{rep.Cases, rep.Totals})
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(data), repo, "REPO")
}

// TestRunJobsKeepsReportOrder audits a real question file, with the
// maintainers' fixes as the remediations, at several --jobs: as many
// cases run at once as asked, results finish out of order, and yet the
// progress order, the report and the fixed file are the same as with one
// job.
func TestRunJobsKeepsReportOrder(t *testing.T) {
	var wantReport, wantFixed string
	var wantOrder []string
	for _, jobs := range []int{1, 2, 5} {
		files, fixes, repo := loadBeforeFixes(t)
		index := map[string]int{}
		var ids []string
		for i, c := range files[0].Cases() {
			index[c.ID] = i
			ids = append(ids, c.ID)
		}
		g := &gauge{next: oracle{fixes}, want: jobs, index: index, full: make(chan struct{})}
		var order []string
		out := filepath.Join(repo, "out")
		res, err := audit.Run(context.Background(), files, audit.Options{RepoRoot: repo, OutDir: out, Auditor: g, Jobs: jobs,
			OnCase: func(c *questions.Case, _ qreport.Case) { order = append(order, c.ID) }})
		if err != nil {
			t.Fatalf("jobs %d: %v", jobs, err)
		}
		if int(g.peak.Load()) != jobs || int(g.calls.Load()) != len(ids) {
			t.Errorf("jobs %d: %d cases ran at once at most, %d calls; want %d and %d", jobs, g.peak.Load(), g.calls.Load(), jobs, len(ids))
		}
		if strings.Join(order, " ") != strings.Join(ids, " ") {
			t.Errorf("jobs %d: progress order %v, want the file's order", jobs, order)
		}
		rep, err := qreport.Read(res.ReportPath)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Fixed) != 1 || len(res.Fixed[0].Cases) != len(fixes) {
			t.Fatalf("jobs %d: %d fixed files", jobs, len(res.Fixed))
		}
		got, fixed := comparable(t, rep, repo), string(res.Fixed[0].Content)
		if jobs == 1 {
			wantReport, wantFixed, wantOrder = got, fixed, order
			continue
		}
		if got != wantReport {
			i := 0
			for i < len(got) && i < len(wantReport) && got[i] == wantReport[i] {
				i++
			}
			t.Errorf("jobs %d: the report differs from the one with one job at %q, want %q", jobs, got[max(0, i-200):min(len(got), i+100)], wantReport[max(0, i-200):min(len(wantReport), i+100)])
		}
		if fixed != wantFixed {
			t.Errorf("jobs %d: the fixed file differs from the one with one job", jobs)
		}
		_ = wantOrder
	}
}

// TestRunJobsStopsCleanly cancels a parallel run as a case starts, like a
// SIGTERM: the cases already running finish, no case starts afterwards,
// and the report holds every case, the rest "not audited".
func TestRunJobsStopsCleanly(t *testing.T) {
	files, fixes, repo := loadBeforeFixes(t)
	index := map[string]int{}
	for i, c := range files[0].Cases() {
		index[c.ID] = i
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := &gauge{next: oracle{fixes}, want: 2, index: index, full: make(chan struct{}), cancelAt: 4, cancel: cancel}
	out := filepath.Join(repo, "out")
	_, err := audit.Run(ctx, files, audit.Options{RepoRoot: repo, OutDir: out, Auditor: g, Jobs: 2, SnapshotEvery: time.Nanosecond})
	if err == nil {
		t.Fatal("a stopped run must return the cancellation")
	}
	rep, rerr := qreport.Read(filepath.Join(out, "quality_report.json"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	audited, notAudited := 0, 0
	for _, c := range rep.Cases {
		if strings.Contains(c.Error, "not audited") {
			notAudited++
		} else {
			audited++
		}
	}
	// Case 4 cancels; at most one other case was in flight beside it.
	if len(rep.Cases) != len(index) || audited < 4 || audited > 5 || audited+notAudited != len(index) {
		t.Errorf("%d cases in the report (%d audited, %d not), want %d with 4 or 5 audited", len(rep.Cases), audited, notAudited, len(index))
	}
	if n := g.afterCancel.Load(); n > 1 {
		t.Errorf("%d cases started after the cancellation; at most the one already taken may", n)
	}
}
