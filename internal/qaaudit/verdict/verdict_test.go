package verdict

import (
	"reflect"
	"strings"
	"testing"
)

// r builds a result map from a compact string such as "A+ B- C?":
// + proven true, - proven false, ? no evidence.
func r(s string) map[string]Truth {
	m := map[string]Truth{}
	for _, f := range strings.Fields(s) {
		k, sign := f[:len(f)-1], f[len(f)-1]
		switch sign {
		case '+':
			m[k] = True
		case '-':
			m[k] = False
		case '?':
			m[k] = Unknown
		}
	}
	return m
}

var abcde = []string{"A", "B", "C", "D", "E"}

func TestDecide(t *testing.T) {
	tests := []struct {
		name    string
		nota    string
		key     string
		results string
		want    Verdict
		reason  string
		truths  string // expected derived truth of the NOTA option, if any
	}{
		// Valid
		{"key true, distractors false", "E", "C", "A- B- C+ D-", Valid, "proven true and every other option is proven false", "false"},
		{"no NOTA option", "", "A", "A+ B- C- D- E-", Valid, "", ""},
		{"NOTA key, all others false", "E", "E", "A- B- C- D-", Valid, "", "true"},
		{"NOTA test result ignored", "E", "E", "A- B- C- D- E-", Valid, "", "true"},
		{"two-key question", "", "A,C", "A+ B- C+ D- E-", Valid, "", ""},
		// Ambiguous
		{"key and a distractor true", "E", "A", "A+ B+ C- D-", Ambiguous, "B proven true besides the correct_answer A", "false"},
		{"key and two distractors true", "", "A", "A+ B+ C+ D- E?", Ambiguous, "B, C proven true", ""},
		{"two distractors true, key unknown", "E", "A", "A? B+ C+ D-", Ambiguous, "more than one right answer", "false"},
		{"key true, distractor true, others unknown", "", "A", "A+ B+ C? D? E?", Ambiguous, "", ""},
		// Incorrect
		{"key false", "E", "B", "A- B- C- D-", Incorrect, "the correct_answer B is proven false", "true"},
		{"key false, distractor true", "E", "B", "A+ B- C- D-", Incorrect, "A proven true instead", "false"},
		{"key false, others unknown", "", "B", "A? B- C? D? E?", Incorrect, "", ""},
		{"NOTA key but a distractor is true", "E", "E", "A- B- C+ D-", Incorrect, "the correct_answer E is proven false; C proven true instead", "false"},
		{"NOTA key, distractor true, rest unknown", "E", "E", "A? B+ C? D?", Incorrect, "", "false"},
		{"one of two keys false", "", "A,C", "A+ B- C- D- E-", Incorrect, "C is proven false", ""},
		// Inconclusive
		{"key errored", "E", "A", "A? B- C- D-", Inconclusive, "no evidence for the correct_answer A", "unknown"},
		{"key errored, one distractor true", "", "A", "A? B+ C- D- E-", Inconclusive, "Incorrect or Ambiguous depending on the missing evidence", ""},
		{"distractor timed out", "E", "A", "A+ B- C? D-", Inconclusive, "no evidence for C", "false"},
		{"NOTA key, distractor errored", "E", "E", "A- B- C- D?", Inconclusive, "no evidence for the correct_answer E", "unknown"},
		{"nothing ran", "E", "A", "", Inconclusive, "", "unknown"},
		{"missing results count as unknown", "", "A", "A+ B-", Inconclusive, "no evidence for C, D, E", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := abcde
			d, err := Decide(Input{Options: opts, NoneOfTheAbove: tt.nota, CorrectAnswer: tt.key, Results: r(tt.results)})
			if err != nil {
				t.Fatal(err)
			}
			if d.Verdict != tt.want {
				t.Errorf("verdict = %s (%s), want %s", d.Verdict, d.Reason, tt.want)
			}
			if !strings.Contains(d.Reason, tt.reason) || d.Reason == "" {
				t.Errorf("reason %q does not contain %q", d.Reason, tt.reason)
			}
			if tt.truths != "" && string(d.Truths[tt.nota]) != tt.truths {
				t.Errorf("NOTA truth = %s, want %s", d.Truths[tt.nota], tt.truths)
			}
			if n := len(d.ProvenTrue) + len(d.ProvenFalse) + len(d.Unknown); n != len(opts) {
				t.Errorf("options accounted = %d, want %d", n, len(opts))
			}
			if d.Flawed() != (tt.want == Ambiguous || tt.want == Incorrect) {
				t.Errorf("Flawed() = %v", d.Flawed())
			}
		})
	}
}

func TestDecideListsEvidence(t *testing.T) {
	d, err := Decide(Input{Options: abcde, NoneOfTheAbove: "E", CorrectAnswer: "A", Results: r("A+ B- C? D-")})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.ProvenTrue, []string{"A"}) || !reflect.DeepEqual(d.ProvenFalse, []string{"B", "D", "E"}) ||
		!reflect.DeepEqual(d.Unknown, []string{"C"}) || !reflect.DeepEqual(d.Expected, []string{"A"}) {
		t.Errorf("decision = %+v", d)
	}
}

func TestDecideRejectsMalformedInput(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		err  string
	}{
		{"no options", Input{CorrectAnswer: "A"}, "no options"},
		{"empty key", Input{Options: abcde}, "correct_answer is empty"},
		{"key names no option", Input{Options: abcde, CorrectAnswer: "F"}, `"F" names no option`},
		{"duplicate option", Input{Options: []string{"A", "A"}, CorrectAnswer: "A"}, "listed twice"},
		{"NOTA not an option", Input{Options: abcde, NoneOfTheAbove: "Z", CorrectAnswer: "A"}, "not an option"},
		{"NOTA with other keys", Input{Options: abcde, NoneOfTheAbove: "E", CorrectAnswer: "A,E"}, "combines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Decide(tt.in); err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
		})
	}
}

func TestIsNoneOfTheAbove(t *testing.T) {
	tests := map[string]bool{
		"None of the above":              true,
		"none of the above.":             true,
		"  None of the above is correct": true,
		"None of these":                  true,
		"No error.":                      false,
		"A ValidationError indicating the agent name is reserved.": false,
		"None of the above, but X":                                 false,
	}
	for text, want := range tests {
		if got := IsNoneOfTheAbove(text); got != want {
			t.Errorf("IsNoneOfTheAbove(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestDecideInvariants checks every combination of outcomes for a
// five-option question with a none-of-the-above option, for every key.
func TestDecideInvariants(t *testing.T) {
	concrete := []string{"A", "B", "C", "D"}
	states := []Truth{True, False, Unknown}
	n := 0
	for mask := 0; mask < 81; mask++ {
		results := map[string]Truth{}
		m := mask
		for _, o := range concrete {
			results[o] = states[m%3]
			m /= 3
		}
		for _, key := range abcde {
			n++
			d, err := Decide(Input{Options: abcde, NoneOfTheAbove: "E", CorrectAnswer: key, Results: results})
			if err != nil {
				t.Fatal(err)
			}
			keyTruth := d.Truths[key]
			var trueCount, unknown int
			for _, o := range abcde {
				switch d.Truths[o] {
				case True:
					trueCount++
				case Unknown:
					unknown++
				}
			}
			ctx := func() string {
				return "key " + key + " results " + fmtResults(results) + " -> " + string(d.Verdict) + ": " + d.Reason
			}
			switch d.Verdict {
			case Valid:
				if keyTruth != True || trueCount != 1 || unknown != 0 {
					t.Fatalf("Valid without full evidence: %s", ctx())
				}
			case Incorrect:
				if keyTruth != False {
					t.Fatalf("Incorrect while the key is not proven false: %s", ctx())
				}
			case Ambiguous:
				if keyTruth == False || trueCount < 2 {
					t.Fatalf("Ambiguous without two true options: %s", ctx())
				}
			case Inconclusive:
				if unknown == 0 {
					t.Fatalf("Inconclusive with complete evidence: %s", ctx())
				}
			}
			// NOTA is true exactly when every concrete option is false.
			allFalse := true
			anyTrue := false
			for _, o := range concrete {
				allFalse = allFalse && results[o] == False
				anyTrue = anyTrue || results[o] == True
			}
			if (d.Truths["E"] == True) != allFalse || (d.Truths["E"] == False) != anyTrue {
				t.Fatalf("NOTA derived as %s: %s", d.Truths["E"], ctx())
			}
		}
	}
	if n != 405 {
		t.Fatalf("checked %d combinations", n)
	}
}

func fmtResults(m map[string]Truth) string {
	var b strings.Builder
	for _, k := range []string{"A", "B", "C", "D"} {
		b.WriteString(k + "=" + string(m[k]) + " ")
	}
	return b.String()
}

func TestDecideChecks(t *testing.T) {
	tests := []struct {
		name   string
		checks []Check
		want   Verdict
		reason string
	}{
		{"all true, the answer checked", []Check{{"fqn:1", True, false}, {"answer", True, true}}, Valid, "every check"},
		{"names exist, the answer not checked", []Check{{"fqn:1", True, false}, {"fqn:2", True, false}}, Inconclusive, "none of them checks the answer itself"},
		{"one false", []Check{{"fqn:1", True, false}, {"fqn:2", False, false}}, Incorrect, "fqn:2 proven false"},
		{"false beats unknown", []Check{{"unfixed", Unknown, true}, {"fixed", False, true}}, Incorrect, "fixed proven false"},
		{"unknown", []Check{{"unfixed", True, true}, {"fixed", Unknown, true}}, Inconclusive, "no evidence for fixed"},
		{"junk truth is unknown", []Check{{"a", Truth("maybe"), true}}, Inconclusive, "no evidence for a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := DecideChecks(tt.checks)
			if err != nil {
				t.Fatal(err)
			}
			if d.Verdict != tt.want || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("got %s (%s), want %s containing %q", d.Verdict, d.Reason, tt.want, tt.reason)
			}
		})
	}
	for _, bad := range [][]Check{nil, {{"a", True, true}, {"a", False, true}}} {
		if _, err := DecideChecks(bad); err == nil {
			t.Errorf("DecideChecks(%v): no error", bad)
		}
	}
}
