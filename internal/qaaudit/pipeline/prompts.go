package pipeline

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/benchgate/benchgate/internal/qaaudit/questions"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// CaseView is what the claim analyst and the proof engineer may see of a
// case. It has no field for the correct answer or the explanation, so the
// prompts built from it cannot carry the ground truth.
type CaseView struct {
	ID       string
	Question string
	Snippet  string
	Options  []questions.Option
	// NoneOfTheAbove is the key of the "None of the above" option, or "".
	NoneOfTheAbove string
}

func (v version) view() CaseView {
	return CaseView{ID: v.id, Question: v.question, Snippet: v.snippet, Options: v.options, NoneOfTheAbove: v.nota}
}

const sharedRole = "You are a senior QA engineer auditing a certification exam about a Python library. Do not rely on memory: every claim is settled by executing pytest files against the installed library."

func writeQuestion(sb *strings.Builder, v CaseView) {
	fmt.Fprintf(sb, "Question (%s):\n%s\n", v.ID, v.Question)
	if v.Snippet != "" {
		fmt.Fprintf(sb, "\nCode:\n```python\n%s\n```\n", strings.TrimRight(v.Snippet, "\n"))
	}
	sb.WriteString("\nOptions:\n")
	for _, o := range v.Options {
		fmt.Fprintf(sb, "%s: %s\n", o.Key, o.Text)
	}
}

// AnalystPrompt is the claim analyst's instruction.
func AnalystPrompt(v CaseView) string {
	var sb strings.Builder
	sb.WriteString("Role: " + AnalystName + "\n" + sharedRole + "\n\n")
	sb.WriteString("Task: turn every option of this multiple-choice question into one atomic, testable claim: what must be true of the library for the option, read literally as an answer to the question, to be right.\n\n")
	writeQuestion(&sb, v)
	if v.NoneOfTheAbove != "" {
		fmt.Fprintf(&sb, "\nOption %s means \"none of the above\"; give it no claim, its truth follows from the others.\n", v.NoneOfTheAbove)
	}
	sb.WriteString("\nUse " + InspectTool + " to read the real signature and documentation of the names the question and options mention.\n")
	sb.WriteString("\nAnswer with JSON only:\n{\"claims\": [{\"option\": \"A\", \"hypothesis\": \"...\", \"code_hint\": \"...\"}]}\n")
	return sb.String()
}

// EngineerPrompt is the proof engineer's instruction for one loop turn.
func EngineerPrompt(v CaseView, claimsJSON string, pending []string) string {
	var sb strings.Builder
	sb.WriteString("Role: " + EngineerName + "\n" + sharedRole + "\n\n")
	writeQuestion(&sb, v)
	if strings.TrimSpace(claimsJSON) != "" {
		fmt.Fprintf(&sb, "\nClaims from the analyst:\n%s\n", claimsJSON)
	}
	sb.WriteString(`
Rules:
- For each option call ` + RunTestTool + ` once with a complete pytest file named test_option_<X>.py containing ONE test function that asserts the option exactly as stated. The test must PASS if and only if the option is true. Do not write tests that pass when the option is false.
- If the option says some code raises an error, assert it with pytest.raises; if it says the code works or returns something, call it and assert the result.
- A test written the other way round (one that passes when the option is false, e.g. pytest.raises for an option that says the code works, or a test named or commented as disproving the option) is refused before it runs.
- Use ` + InspectTool + ` to check a name's real signature before relying on it.
- Put imports of the library inside the test function, so a missing name fails the test instead of breaking collection.
- Use only the library under test and the Python standard library; mock network services with unittest.mock. No network access is available.
- An outcome that is not evidence (error, collection_error, timeout) may be retried once with a corrected test.
`)
	if len(pending) > 0 {
		fmt.Fprintf(&sb, "\nOptions still to prove: %s.\n", strings.Join(pending, ", "))
	} else {
		sb.WriteString("\nEvery option has been proven. Call exit_loop.\n")
	}
	return sb.String()
}

// RemediationPrompt is the remediation engineer's instruction. Unlike the
// other two agents it sees the ground truth: its job is to reconcile the
// case with the proven behaviour.
func RemediationPrompt(c *questions.Case, history []Attempt) string {
	var sb strings.Builder
	sb.WriteString("Role: " + RemediationName + "\n" + sharedRole + "\n\n")
	sb.WriteString("Task: the benchmark case below was proven flawed by executing one test per option. Propose the smallest correction that makes exactly the correct_answer true and every other option false: update correct_answer when the library's behaviour changed (drift), or reword the question or a distractor so it is strictly false (ambiguity). Keep option keys; keep a \"None of the above\" option.\n\n")
	writeQuestion(&sb, CaseView{ID: c.ID, Question: c.Question, Snippet: c.CodeSnippet, Options: c.Options})
	fmt.Fprintf(&sb, "\ncorrect_answer: %s\n", c.CorrectAnswer)
	if c.Explanation != "" {
		fmt.Fprintf(&sb, "explanation: %s\n", c.Explanation)
	}
	for _, at := range history {
		if at.Number == 0 {
			sb.WriteString("\nProof for the case as written:\n")
		} else {
			fmt.Fprintf(&sb, "\nProof for your proposal %d", at.Number)
			if at.Fix != nil {
				fmt.Fprintf(&sb, " (%s)", fixSummary(*at.Fix))
			}
			sb.WriteString(":\n")
		}
		if at.Decision != nil {
			fmt.Fprintf(&sb, "verdict %s: %s\n", at.Verdict, at.Decision.Reason)
		} else {
			fmt.Fprintf(&sb, "verdict %s: %s\n", at.Verdict, at.Error)
		}
		for _, o := range at.Options {
			fmt.Fprintf(&sb, "- %s: %s -> %s", o.Option, o.Outcome, o.Truth)
			if o.Message != "" {
				fmt.Fprintf(&sb, " (%s)", textfmt.Truncate(strings.ReplaceAll(o.Message, "\n", " "), 300))
			}
			sb.WriteString("\n")
		}
	}
	sb.WriteString("\nAnswer with JSON only; omit fields you do not change:\n{\"question\": \"...\", \"options\": {\"B\": \"...\"}, \"correct_answer\": \"C\", \"explanation\": \"...\", \"rationale\": \"why this fixes the case\"}\n")
	return sb.String()
}

func fixSummary(f questions.Fix) string {
	var parts []string
	if f.CorrectAnswer != nil {
		parts = append(parts, "correct_answer="+*f.CorrectAnswer)
	}
	if f.Question != nil {
		parts = append(parts, "question reworded")
	}
	for _, k := range slices.Sorted(maps.Keys(f.Options)) {
		parts = append(parts, "option "+k+" changed")
	}
	return strings.Join(parts, ", ")
}
