package pipeline

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestPromptsOnRealQuestions builds the analyst and engineer prompts for
// every multiple-choice case of the real ADK benchmark files: each prompt
// shows the question and every option, and none shows the explanation or
// names the correct answer.
func TestPromptsOnRealQuestions(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(testenv.RepoRoot(t), "testdata", "adk", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no real question files: %v", err)
	}
	audited := 0
	for _, path := range files {
		f, err := questions.Load(path, questions.Options{SkipSnippets: true})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, c := range f.Cases() {
			if c.Kind != questions.MultipleChoice || !c.OK() {
				continue
			}
			audited++
			v := versionOf(c).view()
			for name, p := range map[string]string{"analyst": AnalystPrompt(v), "engineer": EngineerPrompt(v, `{"claims": []}`, []string{"A"})} {
				if !strings.Contains(p, c.Question) {
					t.Errorf("%s: %s prompt lacks the question", c.ID, name)
				}
				for _, o := range c.Options {
					if !strings.Contains(p, o.Key+": "+o.Text) {
						t.Errorf("%s: %s prompt lacks option %s", c.ID, name, o.Key)
					}
				}
				if strings.Contains(p, "correct_answer") || strings.Contains(p, "explanation") {
					t.Errorf("%s: %s prompt names the ground truth", c.ID, name)
				}
				if e := strings.TrimSpace(c.Explanation); len(e) > 20 && strings.Contains(p, e) && !strings.Contains(shown(c), e) {
					t.Errorf("%s: %s prompt contains the explanation", c.ID, name)
				}
			}
		}
	}
	if audited < 130 {
		t.Errorf("only %d multiple-choice cases checked; the real files hold more than 130", audited)
	}
}

// shown is the text the case legitimately shows: question and options (an
// explanation may repeat an option word for word).
func shown(c *questions.Case) string {
	s := c.Question
	for _, o := range c.Options {
		s += "\n" + o.Text
	}
	return s
}
