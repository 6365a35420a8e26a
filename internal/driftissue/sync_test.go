package driftissue

import (
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testsupport/ghfake"
)

// TestSyncLeavesClosedAProvisionalIssueWhoseChangeIsPlacedAgain: a
// maintainer closed the issue of a provisional change point; the next
// analysis places the same change a run away (a new ID). The closed
// issue takes it over and stays closed: no second issue. A change of the
// same series whose issue benchgate closed as undone is not taken for it.
func TestSyncLeavesClosedAProvisionalIssueWhoseChangeIsPlacedAgain(t *testing.T) {
	for _, tc := range []struct {
		name   string
		closer func(gh *ghfake.Server)
		want   string
		issues int
	}{
		{"closed by a person while provisional", func(gh *ghfake.Server) { gh.CloseIssue(1, "not_planned") }, "#1 left closed", 1},
		{"left open", func(*ghfake.Server) {}, "#1 updated", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gh := ghfake.New("octo", "bench", "main", token, nil)
			defer gh.Close()
			now := time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)
			first := cp("latency_ms", "ghx", "", 35, 13.4, true)
			first.Provisional = true
			sync(t, gh, report(first), opts(now))
			tc.closer(gh)
			again := cp("latency_ms", "ghx", "", 34, 12.9, true)
			res := sync(t, gh, report(again), opts(now.AddDate(0, 0, 7)))
			if got := actions(res); got != tc.want {
				t.Errorf("%s, want %s", got, tc.want)
			}
			if n := len(gh.Issues()); n != tc.issues {
				t.Errorf("%d issues, want %d", n, tc.issues)
			}
		})
	}
}

// TestSyncOpensAnIssueForANewChangeAfterAnUndoneOne: the issue of a
// change that benchgate closed as undone is not a provisional one a
// person closed: a new change of the same series and direction, once the
// undone one left the history, gets an issue of its own.
func TestSyncOpensAnIssueForANewChangeAfterAnUndoneOne(t *testing.T) {
	gh := ghfake.New("octo", "bench", "main", token, nil)
	defer gh.Close()
	now := time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)
	up := cp("latency_ms", "ghx", "", 10, 13.4, true)
	up.Provisional = true
	sync(t, gh, report(up), opts(now))
	up.Provisional, up.Open = false, false
	back := cp("latency_ms", "ghx", "", 20, -12, true)
	back.BeforeLevel, back.AfterLevel = 1134, 1000
	if got := actions(sync(t, gh, report(back, up), opts(now.AddDate(0, 0, 7)))); got != "#1 closed" {
		t.Fatalf("%s, want #1 closed", got)
	}
	again := cp("latency_ms", "ghx", "", 45, 13.4, true)
	res := sync(t, gh, report(again), opts(now.AddDate(0, 0, 14)))
	if got := actions(res); got != "#2 opened" {
		t.Errorf("%s, want #2 opened", got)
	}
}
