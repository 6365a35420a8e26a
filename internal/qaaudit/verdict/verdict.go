// Package verdict decides, in code and never by a model, whether a
// multiple-choice question is Valid, Ambiguous, Incorrect or Inconclusive
// from the proven truth of each option.
//
// Every option's test asserts the option as stated, so a passing test
// proves the option true and an assertion failure proves it false. Errors,
// timeouts and collection failures prove nothing: a verdict that would rest
// on such an outcome is Inconclusive, never Incorrect.
//
// A "None of the above" option is not tested on its own: it is true exactly
// when every other option is proven false, false as soon as another option
// is proven true, and unknown otherwise.
package verdict

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Verdict is the judgement of one question.
type Verdict string

// The four verdicts.
const (
	Valid        Verdict = "Valid"
	Ambiguous    Verdict = "Ambiguous"
	Incorrect    Verdict = "Incorrect"
	Inconclusive Verdict = "Inconclusive"
)

// Truth is what the evidence says about one option.
type Truth string

// The three states of an option.
const (
	True    Truth = "true"    // its test passed
	False   Truth = "false"   // its test failed on an assertion or exception
	Unknown Truth = "unknown" // no evidence: error, timeout, collection error, or no test
)

// Input is one question with the evidence about its options.
type Input struct {
	// Options are the option keys in question order.
	Options []string
	// NoneOfTheAbove is the key of the "None of the above" option, or "".
	NoneOfTheAbove string
	// CorrectAnswer is the ground truth: one key, or several separated by
	// commas for questions with more than one right answer.
	CorrectAnswer string
	// Results holds the truth of each tested option; a missing key is Unknown.
	Results map[string]Truth
}

// Decision is a verdict with the facts it rests on.
type Decision struct {
	Verdict     Verdict          `json:"verdict"`
	Reason      string           `json:"reason"`
	Expected    []string         `json:"expected"`     // the correct_answer keys
	ProvenTrue  []string         `json:"proven_true"`  // options proven true (NOTA derived)
	ProvenFalse []string         `json:"proven_false"` // options proven false
	Unknown     []string         `json:"unknown"`      // options without evidence
	Truths      map[string]Truth `json:"truths"`       // every option, NOTA included
}

// Flawed reports whether the question needs remediation.
func (d Decision) Flawed() bool { return d.Verdict == Ambiguous || d.Verdict == Incorrect }

var notaPattern = regexp.MustCompile(`(?i)^\s*(none of (the )?(above|these|the options)( (is|are) (correct|true))?)\s*[.!]?\s*$`)

// IsNoneOfTheAbove reports whether an option text is a "None of the above"
// option.
func IsNoneOfTheAbove(text string) bool { return notaPattern.MatchString(text) }

// Decide applies the rules in this order:
//
//  1. a correct_answer option proven false → Incorrect (the key is wrong;
//     a "None of the above" key is false as soon as another option is true);
//  2. more options proven true than the key names, with every key option
//     proven true, or at least two options outside the key proven true →
//     Ambiguous (the question has more than one right answer);
//  3. exactly the key options proven true and every other option proven
//     false → Valid;
//  4. anything else → Inconclusive: some outcome the verdict needs is not
//     evidence (for instance the key's test errored while one distractor
//     passed — that could be Incorrect or Ambiguous, and guessing would
//     rest on the error).
//
// Decide returns an error when the input is malformed (no options, a key
// that names no option); the caller reports that as a problem of the case.
func Decide(in Input) (Decision, error) {
	if len(in.Options) == 0 {
		return Decision{}, fmt.Errorf("question has no options")
	}
	index := map[string]bool{}
	for _, o := range in.Options {
		if index[o] {
			return Decision{}, fmt.Errorf("option %q listed twice", o)
		}
		index[o] = true
	}
	if in.NoneOfTheAbove != "" && !index[in.NoneOfTheAbove] {
		return Decision{}, fmt.Errorf("none-of-the-above key %q is not an option", in.NoneOfTheAbove)
	}
	expected := splitKeys(in.CorrectAnswer)
	if len(expected) == 0 {
		return Decision{}, fmt.Errorf("correct_answer is empty")
	}
	isKey := map[string]bool{}
	for _, k := range expected {
		if !index[k] {
			return Decision{}, fmt.Errorf("correct_answer %q names no option; options are %v", k, in.Options)
		}
		isKey[k] = true
	}
	if isKey[in.NoneOfTheAbove] && len(expected) > 1 {
		return Decision{}, fmt.Errorf("correct_answer %q combines none-of-the-above with other options", in.CorrectAnswer)
	}

	d := Decision{Expected: expected, Truths: map[string]Truth{}}
	// Concrete options first: their truth comes from their own test.
	for _, o := range in.Options {
		if o == in.NoneOfTheAbove {
			continue
		}
		t := in.Results[o]
		if t != True && t != False {
			t = Unknown
		}
		d.Truths[o] = t
	}
	if in.NoneOfTheAbove != "" {
		d.Truths[in.NoneOfTheAbove] = noneOfTheAbove(d.Truths)
	}
	for _, o := range in.Options {
		switch d.Truths[o] {
		case True:
			d.ProvenTrue = append(d.ProvenTrue, o)
		case False:
			d.ProvenFalse = append(d.ProvenFalse, o)
		default:
			d.Unknown = append(d.Unknown, o)
		}
	}

	var keyFalse, keyUnknown, extraTrue, othersUnknown []string
	for _, o := range in.Options {
		t := d.Truths[o]
		switch {
		case isKey[o] && t == False:
			keyFalse = append(keyFalse, o)
		case isKey[o] && t == Unknown:
			keyUnknown = append(keyUnknown, o)
		case !isKey[o] && t == True:
			extraTrue = append(extraTrue, o)
		case !isKey[o] && t == Unknown:
			othersUnknown = append(othersUnknown, o)
		}
	}
	switch {
	case len(keyFalse) > 0:
		d.Verdict = Incorrect
		d.Reason = fmt.Sprintf("the correct_answer %s is proven false", list(keyFalse))
		if len(extraTrue) > 0 {
			d.Reason += fmt.Sprintf("; %s proven true instead", list(extraTrue))
		}
	case len(extraTrue) > 0 && (len(keyUnknown) == 0 || len(extraTrue) >= 2):
		d.Verdict = Ambiguous
		if len(keyUnknown) == 0 {
			d.Reason = fmt.Sprintf("%s proven true besides the correct_answer %s", list(extraTrue), list(expected))
		} else {
			d.Reason = fmt.Sprintf("%s are all proven true; the question has more than one right answer", list(extraTrue))
		}
	case len(keyUnknown) == 0 && len(othersUnknown) == 0:
		d.Verdict = Valid
		d.Reason = fmt.Sprintf("the correct_answer %s is proven true and every other option is proven false", list(expected))
	default:
		d.Verdict = Inconclusive
		var parts []string
		if len(keyUnknown) > 0 {
			parts = append(parts, fmt.Sprintf("no evidence for the correct_answer %s", list(keyUnknown)))
		}
		if len(extraTrue) > 0 {
			parts = append(parts, fmt.Sprintf("%s proven true (Incorrect or Ambiguous depending on the missing evidence)", list(extraTrue)))
		}
		if len(othersUnknown) > 0 {
			parts = append(parts, fmt.Sprintf("no evidence for %s", list(othersUnknown)))
		}
		d.Reason = strings.Join(parts, "; ")
	}
	return d, nil
}

// noneOfTheAbove derives the truth of a "None of the above" option.
func noneOfTheAbove(others map[string]Truth) Truth {
	allFalse := true
	for _, t := range others {
		if t == True {
			return False
		}
		if t != False {
			allFalse = false
		}
	}
	if allFalse && len(others) > 0 {
		return True
	}
	return Unknown
}

func splitKeys(s string) []string {
	var keys []string
	seen := map[string]bool{}
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		if k != "" && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func list(keys []string) string {
	if len(keys) == 1 {
		return keys[0]
	}
	return strings.Join(keys, ", ")
}

// Check is one claim that a case without options stands on, proven by
// execution: a fully qualified name resolves, a benchmark's test fails on
// the unfixed code, passes on the fixed code.
type Check struct {
	Key   string // names the check in the report, e.g. "fqn:1" or "fixed"
	Truth Truth  // True: the claim holds; False: proven not to; Unknown: no evidence
	// Answer marks a check of the answer itself (its kind, value,
	// exception or absence; a fix that fixes) rather than of a name's
	// existence. A case is Valid only when one of them was proven true.
	Answer bool
}

func answerChecked(checks []Check) bool {
	for _, c := range checks {
		if c.Answer && c.Truth == True {
			return true
		}
	}
	return false
}

// DecideChecks judges a case that is correct exactly when every one of its
// checks holds (api_understanding, fix_error): any check proven false →
// Incorrect, whatever the others say, since that single fact already makes
// the case wrong; every check proven true, one of them a check of the
// answer itself → Valid (names that exist do not make an answer right);
// anything else →
// Inconclusive, because an error, a timeout or a missing package is a
// problem of the environment, not evidence about the case. There is no
// Ambiguous verdict for these kinds.
func DecideChecks(checks []Check) (Decision, error) {
	if len(checks) == 0 {
		return Decision{}, fmt.Errorf("case has nothing to check")
	}
	d := Decision{Truths: map[string]Truth{}}
	for _, c := range checks {
		if _, dup := d.Truths[c.Key]; dup {
			return Decision{}, fmt.Errorf("check %q listed twice", c.Key)
		}
		t := c.Truth
		if t != True && t != False {
			t = Unknown
		}
		d.Truths[c.Key] = t
		switch t {
		case True:
			d.ProvenTrue = append(d.ProvenTrue, c.Key)
		case False:
			d.ProvenFalse = append(d.ProvenFalse, c.Key)
		default:
			d.Unknown = append(d.Unknown, c.Key)
		}
	}
	switch {
	case len(d.ProvenFalse) > 0:
		d.Verdict = Incorrect
		d.Reason = fmt.Sprintf("%s proven false", list(d.ProvenFalse))
	case len(d.Unknown) == 0 && answerChecked(checks):
		d.Verdict = Valid
		d.Reason = fmt.Sprintf("every check (%s) proven true", list(d.ProvenTrue))
	case len(d.Unknown) == 0:
		d.Verdict = Inconclusive
		d.Reason = fmt.Sprintf("every check (%s) proven true, but none of them checks the answer itself", list(d.ProvenTrue))
	default:
		d.Verdict = Inconclusive
		d.Reason = fmt.Sprintf("no evidence for %s", list(d.Unknown))
	}
	return d, nil
}
