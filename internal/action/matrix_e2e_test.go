package action_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/prcomment"
	"github.com/benchgate/benchgate/internal/testsupport/gfm"
)

// TestMatrixLegsKeepTheirOwnComments: two legs of one matrix job (the
// same workflow, job ID and mode; the composite action hands each its
// matrix values) post on one pull request against the stateful fake
// GitHub. Each keeps a comment of its own: the failing leg's ❌ and the
// passing leg's ✅ stand side by side, and a rerun of one leg edits its
// own comment only. Before, both legs carried one marker, so the leg
// that finished last overwrote the other's verdict. A step outside a
// matrix (toJSON(matrix) is null) keeps the marker it always had.
func TestMatrixLegsKeepTheirOwnComments(t *testing.T) {
	leg := func(t *testing.T, matrix string, fail ...int) *step {
		s := newStep(t, map[string]string{"mode": "report", "suite-jsonl": "cur/*-suite.jsonl", "gate": "true", "upload-artifacts": "false"})
		os.MkdirAll(filepath.Join(s.ws, "cur"), 0o755)
		os.WriteFile(filepath.Join(s.ws, "cur", "agent_direct-suite.jsonl"), []byte(suiteText("agent_direct", 4, 12, 1000)), 0o644)
		os.WriteFile(filepath.Join(s.ws, "cur", "ghx-suite.jsonl"), []byte(suiteText("ghx", 4, 12, 500, fail...)), 0o644)
		s.env["BENCHGATE_MATRIX"] = matrix
		return s
	}
	passing := leg(t, `{"suite": "core", "model": "gpt-5.1-codex-mini"}`)
	failing := leg(t, `{"model": "gpt-5.1-codex-mini", "suite": "extra"}`, 1, 2, 3, 4)
	gh := prStep(t, passing, "octo/bench")
	onPull(t, failing, gh, "octo/bench")

	byMarker := func() map[string]string {
		out := map[string]string{}
		for _, c := range gh.Comments(1) {
			gfm.Require(t, "comment", c.Body)
			m, rest, _ := strings.Cut(c.Body, "\n")
			first, _, _ := strings.Cut(rest, "\n")
			if _, dup := out[m]; dup {
				t.Errorf("two comments carry the marker %s", m)
			}
			out[m] = first
		}
		return out
	}
	passMarker := prcomment.LegMarker("bench", "bench", "report", "model=gpt-5.1-codex-mini,suite=core")
	failMarker := prcomment.LegMarker("bench", "bench", "report", "model=gpt-5.1-codex-mini,suite=extra")

	passing.runWant(t, 0)
	failing.runWant(t, 1)
	got := byMarker()
	if len(got) != 2 || !strings.HasPrefix(got[passMarker], "✅ **benchgate report: pass**") || !strings.HasPrefix(got[failMarker], "❌ **benchgate report: fail**") {
		t.Fatalf("after both legs, the comments are %q\nwant a ✅ under %s and a ❌ under %s", got, passMarker, failMarker)
	}
	sameOpening(t, passing, got[passMarker], 0, "pass")
	sameOpening(t, failing, got[failMarker], 1, "fail")

	// The failing leg is fixed and rerun: its comment turns ✅, the other
	// leg's stays as it was, and no third comment appears.
	os.WriteFile(filepath.Join(failing.ws, "cur", "ghx-suite.jsonl"), []byte(suiteText("ghx", 4, 12, 500)), 0o644)
	failing.rerun(t, 2)
	again := byMarker()
	if len(again) != 2 || again[passMarker] != got[passMarker] || !strings.HasPrefix(again[failMarker], "✅ **benchgate report: pass**") {
		t.Errorf("after the rerun of one leg, the comments are %q", again)
	}

	// Outside a matrix the marker is the one benchgate always wrote, so
	// the comment a pull request already has is the one edited.
	plain := leg(t, "null")
	onPull(t, plain, gh, "octo/bench")
	plain.runWant(t, 0)
	if last := byMarker(); len(last) != 3 || !strings.HasPrefix(last[prcomment.Marker("bench", "bench", "report")], "✅ ") {
		t.Errorf("a step outside a matrix: comments %q", last)
	}
}
