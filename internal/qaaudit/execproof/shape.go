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
	// Words are the question's identifiers: a default question names its
	// parameter among them.
	Words []string `json:"words,omitempty"`
	// Call is the call expression an exception question writes in
	// backquotes (int('x')).
	Call string `json:"call,omitempty"`
}

var (
	// negativeMembership words a claim that the answer is NOT a member:
	// the answer is the absent name.
	negativeMembership = regexp.MustCompile(`(?i)(\b(does|do|did|is|are|was|were|has|have|can)\s*(not|n't)\s+(have|provide|accept|take|define|support|contain|include|expose|offer|exist|implement|carry|belong|a|an|one|part|available|valid|listed|defined|accepted|supported|present)\b|\b(doesn't|don't|didn't|isn't|aren't|wasn't|weren't|hasn't|haven't)\s+(have|provide|accept|take|define|support|contain|include|expose|offer|exist|implement|carry|belong|a|an|one|part|available|valid|listed|defined|accepted|supported|present)\b|\bno longer\b|\b(was|were|is|are|has been|have been|got|been)\s+(removed|dropped|deleted)\b|\bnot\s+(a|an)\s+(valid\s+)?(method|attribute|parameter|argument|keyword|member|field|function|property|class|constant|submodule)s?\b|\b(lacks?|missing from|absent from)\b)`)
	// negationWord is any negation; outside the patterns above it makes
	// the polarity unclear.
	negationWord = regexp.MustCompile(`(?i)(\b(not|never|no|none|neither|nor|cannot|without|except|lacks?|missing|absent|removed|dropped|deleted|deprecated|obsolete|unsupported|invalid)\b|n't\b)`)

	defaultWords   = regexp.MustCompile(`(?i)\bdefaults?\b|\bdefault value\b`)
	exceptionWords = regexp.MustCompile(`(?i)\b(exceptions?|errors?|raises?|raised|raising|throws?|thrown)\b`)
	valueWords     = regexp.MustCompile(`(?i)\b(value|values|equal|equals|evaluates?|returns?|returned|result|holds?|number|how many|how much|what is the (size|length|count))\b`)
	backquoted     = regexp.MustCompile("`([^`]+)`")
	callExpr       = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\(.*\)$`)
	wordPattern    = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	// literalNames are values spelled like identifiers: they are never
	// looked up as member names.
	literalNames = map[string]bool{"None": true, "True": true, "False": true, "Ellipsis": true, "NotImplemented": true}
)

// ReadShape reads the shape of a question and one of its answers.
func ReadShape(question, answer string) Shape {
	s := Shape{Kind: ClaimKind(question), Polarity: PolarityOf(question)}
	if !IsValueAnswer(answer) && !(exceptionWords.MatchString(question) && ident.FQN.Match(strings.TrimSpace(answer))) {
		return s
	}
	switch {
	case exceptionWords.MatchString(question):
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
		return fmt.Sprintf("%s is not %s of %s, as the question says", answer, kindWords[s.Kind], of)
	}
	return fmt.Sprintf("the answer %s is the name or %s of %s", answer, kindWords[s.Kind], of)
}
