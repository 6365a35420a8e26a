package action_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/gfm"
)

// TestHostileScenarioIDIsInert runs `benchgate action` in report mode on
// a pull request whose suite rows carry scenario IDs that try to become
// Markdown (a tracking image, a team mention, a link titled like the job
// summary's, raw HTML, an entity that decodes to '@'), failing in both
// modes so that they reach the next-step line. The comment the fake
// GitHub keeps and the job summary render through cmark-gfm with no
// link but the step's own into the repository, no image, no HTML and no
// live mention.
func TestHostileScenarioIDIsInert(t *testing.T) {
	ids := []string{
		"s-000 ![t](https://evil.example/p.png)",
		"s-001 @o/core",
		"s-002 [job summary](https://evil.example/summary)",
		`s-003 <img src="https://evil.example/i.png">`,
		"s-004 &commat;admin www.evil.example",
	}
	s := newStep(t, map[string]string{"mode": "report", "suite-jsonl": "cur/agent_direct-suite.jsonl\ncur/ghx-suite.jsonl", "gate": "true", "upload-artifacts": "false"})
	gh := prStep(t, s, "octo/bench")
	for _, m := range []string{"agent_direct", "ghx"} {
		text := suiteText(m, 4, 6, 1000, 0, 1, 2, 3, 4)
		for i, id := range ids {
			q := strings.ReplaceAll(id, `"`, `\"`)
			text = strings.ReplaceAll(text, `"scenario_id":"s-00`+string(rune('0'+i))+`"`, `"scenario_id":"`+q+`"`)
		}
		p := filepath.Join(s.ws, "cur", m+"-suite.jsonl")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.run(t)
	if s.code != 1 {
		t.Fatalf("exit %d, want 1 (failing rows)\n%s", s.code, s.stdout)
	}
	cs := gh.Comments(1)
	if len(cs) != 1 {
		t.Fatalf("%d comments, want 1\n%s", len(cs), s.stdout)
	}
	if !strings.Contains(cs[0].Body, "fail(s) in both agent_direct and ghx") {
		t.Errorf("the hostile IDs did not reach the next-step line:\n%s", cs[0].Body)
	}
	gfm.RequireInert(t, "comment", cs[0].Body, "https://github.com/octo/bench/")
	gfm.RequireInert(t, "job summary", s.summary(t), "https://github.com/octo/bench/", "#")
}
