package drift

import (
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/runrecord"
)

// TestGroupOrdersRunsByTheirStart: runs are ordered by the instant they
// started, whatever offset or fraction of a second their rows were
// written with; equal starts by their folder; starts that are not times
// as text. Each case's order was worked out by hand in UTC.
func TestGroupOrdersRunsByTheirStart(t *testing.T) {
	for _, tc := range []struct {
		name   string
		starts map[string]string // folder: started_at
		want   string            // folders, oldest first
	}{
		{"UTC, out of folder order", map[string]string{"a": "2026-01-03T03:00:00.000Z", "b": "2026-01-01T03:00:00.000Z", "c": "2026-01-02T03:00:00.000Z"}, "b c a"},
		// b is 04:00Z, a 05:00Z, c 06:00Z; as text a < b < c.
		{"offsets", map[string]string{"a": "2026-01-01T05:00:00.000Z", "b": "2026-01-01T13:00:00.000+09:00", "c": "2026-01-01T01:00:00.000-05:00"}, "b a c"},
		// a whole second sorts after its fractions as text ('Z' > '.').
		{"fractions of varying length", map[string]string{"a": "2026-01-01T03:00:01Z", "b": "2026-01-01T03:00:00.5Z", "c": "2026-01-01T03:00:00Z"}, "c b a"},
		{"equal starts: by folder", map[string]string{"b": "2026-01-01T03:00:00Z", "a": "2026-01-01T03:00:00Z", "c": "2026-01-01T03:00:00Z"}, "a b c"},
		{"the same instant written twice: by text", map[string]string{"a": "2026-01-01T04:00:00+01:00", "b": "2026-01-01T03:00:00Z"}, "a b"},
		{"not times: as text", map[string]string{"a": "run 2", "b": "run 1"}, "b a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var modes []runrecord.Mode
			for dir, start := range tc.starts {
				modes = append(modes, runrecord.Mode{Mode: "ghx", Source: "/h/" + dir + "/2026-ghx-suite.jsonl", StartedAt: start, RunIDs: []string{dir}, RunIDCount: 1})
			}
			h := Group(modes)
			var got []string
			for _, r := range h.Runs {
				got = append(got, r.RunID)
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("order %v, want %s", got, tc.want)
			}
		})
	}
}
