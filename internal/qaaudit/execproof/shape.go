package execproof

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/benchgate/benchgate/internal/ident"
)

// Polarity says whether a question claims its answer is there (positive),
// is not there (negative: "which method does frozenset NOT provide", "which
// parameter was removed"), or words it in a way the rules do not read
// (unclear: a "not" somewhere else in the sentence). Only a positive claim
// can be proven false by a name's absence; a negative one is proven true
// by it.
type Polarity string

// The polarities of a question.
const (
	Positive Polarity = "positive"
	Negative Polarity = "negative"
	Unclear  Polarity = "unclear"
)

// Value shapes: what a value answer is, when the question says so.
const (
	ValueNone      = ""          // the answer is a name, not a value
	ValueDefault   = "default"   // a parameter's default, read from the signature
	ValueConstant  = "constant"  // the value a name holds
	ValueException = "exception" // the exception a call written in the question raises
	ValueOther     = "other"     // a value whose check the question's shape does not say
)

// Shape is what code understood of an api_understanding question: the
// kind of member the answer names, the polarity of the claim and, for a
// value answer, what the value is of.
type Shape struct {
	Kind     string   `json:"kind"`
	Polarity Polarity `json:"polarity"`
	Value    string   `json:"value"`
	// Platform is another platform the question names (Windows, macOS):
	// a value that differs here proves nothing about it.
	Platform string `json:"platform,omitempty"`
	// Quoted and Words are the question's identifiers, in backquotes and
	// in all: a default question names its parameter among them, the
	// quoted ones first (`indent` of `json.dumps`, not the word
	// "default", which is a parameter of json.dumps too).
	Quoted []string `json:"quoted,omitempty"`
	Words  []string `json:"words,omitempty"`
	// Call is the call expression an exception question writes in
	// backquotes (int('x')).
	Call string `json:"call,omitempty"`
}

var (
	// negativeMembership words a claim that the answer is NOT a member:
	// the answer is the absent name.
	negativeMembership = regexp.MustCompile(`(?i)(\b(does|do|did|is|are|was|were|has|have|can)\b[^?.,;]{0,40}?\s*\b(not|n't)\s+(have|provide|accept|take|define|support|contain|include|expose|offer|exist|implement|carry|belong|a|an|one|part|available|valid|listed|defined|accepted|supported|present)\b|\b(doesn't|don't|didn't|isn't|aren't|wasn't|weren't|hasn't|haven't)\s+(have|provide|accept|take|define|support|contain|include|expose|offer|exist|implement|carry|belong|a|an|one|part|available|valid|listed|defined|accepted|supported|present)\b|\bno longer\b|\b(was|were|is|are|has been|have been|got|been)\s+(removed|dropped|deleted|gone|retired|eliminated|discontinued|unavailable)\b|\bnot\s+(a|an)\s+(valid\s+)?(method|attribute|parameter|argument|keyword|member|field|function|property|class|constant|submodule)s?\b|\b(lacks?|missing from|absent from)\b)`)
	// negationWord is any negation; outside the patterns above it makes
	// the polarity unclear.
	negationWord = regexp.MustCompile(`(?i)(\b(not|never|no|none|neither|nor|cannot|without|except|lacks?|missing|absent|removed|dropped|deleted|deprecated|obsolete|unsupported|unavailable|invalid|gone|retired|eliminated|discontinued)\b|n't\b)`)

	defaultWords = regexp.MustCompile(`(?i)\bdefaults?\b|\bdefault value\b`)
	// raiseWords ask what a call raises; exceptionWords with an answer
	// named like an exception class ask it too.
	raiseWords     = regexp.MustCompile(`(?i)\b(raises?|raised|raising|throws?|thrown)\b`)
	exceptionWords = regexp.MustCompile(`(?i)\b(exceptions?|errors?)\b`)
	exceptionName  = regexp.MustCompile(`(Error|Exception|Warning|Exit|Interrupt)$`)
	// otherPlatform names a platform other than the Linux the sandbox
	// runs on.
	otherPlatform = regexp.MustCompile(`(?i)\b(windows|win32|win64|macos|mac os|os x|darwin|freebsd|cygwin|android|ios|wasi|emscripten)\b`)
	// asksValue is a question that asks for a value, whatever the
	// answer looks like ("what is the default of extra": ignore).
	asksValue   = regexp.MustCompile(`(?i)^\s*what(\s+is|'s)?\s+the\s+(default|value)\b|^\s*what\s+(default|value)\b`)
	valueWords  = regexp.MustCompile(`(?i)\b(value|values|equal|equals|evaluates?|returns?|returned|result|holds?|number|how many|how much|what is the (size|length|count))\b`)
	backquoted  = regexp.MustCompile("`([^`]+)`")
	callExpr    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\(.*\)$`)
	wordPattern = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	// literalNames are values spelled like identifiers: they are never
	// looked up as member names.
	literalNames = map[string]bool{"None": true, "True": true, "False": true, "Ellipsis": true, "NotImplemented": true}
)

// ReadShape reads the shape of a question and one of its answers.
func ReadShape(question, answer string) Shape {
	s := Shape{Kind: ClaimKind(question), Polarity: PolarityOf(question)}
	if m := otherPlatform.FindString(question); m != "" {
		s.Platform = m
	}
	asksException := raiseWords.MatchString(question) || exceptionWords.MatchString(question) && exceptionName.MatchString(strings.TrimSpace(answer))
	if !IsValueAnswer(answer) && !asksException && !asksValue.MatchString(question) {
		return s
	}
	switch {
	case asksException:
		s.Value = ValueException
		for _, m := range backquoted.FindAllStringSubmatch(question, -1) {
			if c := strings.TrimSpace(m[1]); callExpr.MatchString(c) {
				s.Call = c
				break
			}
		}
	case defaultWords.MatchString(question):
		s.Value = ValueDefault
		s.Words = wordPattern.FindAllString(question, -1)
		for _, m := range backquoted.FindAllStringSubmatch(question, -1) {
			s.Quoted = append(s.Quoted, wordPattern.FindAllString(m[1], -1)...)
		}
	case valueWords.MatchString(question):
		s.Value = ValueConstant
	default:
		s.Value = ValueOther
	}
	return s
}

// PolarityOf reads the polarity of a question.
func PolarityOf(question string) Polarity {
	switch {
	case negativeMembership.MatchString(question):
		return Negative
	case negationWord.MatchString(question):
		return Unclear
	}
	return Positive
}

// IsValueAnswer reports whether an answer is a value (a number, a string,
// None, True) rather than a name.
func IsValueAnswer(answer string) bool {
	a := strings.TrimSpace(answer)
	if literalNames[a] {
		return true
	}
	return !ident.PythonName.Match(a)
}

// answerClaim words what the answer check of a shape tests.
func answerClaim(answer string, names []string, s Shape) string {
	of := strings.Join(names, " or ")
	switch s.Value {
	case ValueDefault:
		return fmt.Sprintf("the default of the parameter the question names, in %s, is %s", of, answer)
	case ValueConstant:
		return fmt.Sprintf("%s holds the value %s", of, answer)
	case ValueException:
		if s.Call != "" {
			return fmt.Sprintf("%s raises %s", s.Call, answer)
		}
		return fmt.Sprintf("the call the question means raises %s", answer)
	case ValueOther:
		return fmt.Sprintf("the value %s answers the question about %s", answer, of)
	}
	if s.Polarity == Negative {
		return fmt.Sprintf("%s is not %s of %s, as the question says", answer, kindWords[s.Kind], strings.Join(owners(names, answer), " or "))
	}
	return fmt.Sprintf("the answer %s is the name or %s of %s", answer, kindWords[s.Kind], of)
}

// owners are the names with a last part that is the answer itself cut to
// their parent: "discard is not a method of builtins.frozenset", not of
// builtins.frozenset.discard.
func owners(names []string, answer string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		if parent, last, ok := cutLast(n); ok && last == answer {
			n = parent
		}
		out[i] = n
	}
	return out
}

func cutLast(name string) (parent, last string, ok bool) {
	i := strings.LastIndex(name, ".")
	if i < 0 {
		return "", name, false
	}
	return name[:i], name[i+1:], true
}

// openAnswerClaim is the answer's claim as a prover is asked it: a name
// is looked for in what the objects return or decorate too, since that is
// where the rules could not look.
func openAnswerClaim(answer string, names []string, s Shape) string {
	if s.Value == ValueConstant || s.Value == ValueOther {
		return fmt.Sprintf("the value %s answers the question about %s", answer, strings.Join(names, " or "))
	}
	if s.Value != ValueNone || s.Polarity == Negative {
		return answerClaim(answer, names, s)
	}
	of := strings.Join(owners(names, answer), " or ")
	return fmt.Sprintf("%s is %s of %s, or of what it returns or decorates, as the question asks", answer, kindWords[s.Kind], of)
}
