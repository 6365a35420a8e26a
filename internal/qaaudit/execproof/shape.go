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
	// backquotes (int('x'), [].pop(), 'é'.encode('ascii')).
	Call string `json:"call,omitempty"`
	// ParamKind is the kind of parameter the question names
	// ("positional-only", "keyword-only", "var-positional",
	// "var-keyword"), which the signature must give the answer.
	ParamKind string `json:"param_kind,omitempty"`
	// Relation is what the question asks of the answer besides its
	// name: "direct_base", "ancestor" (a base class, the MRO),
	// "descendant" (a subclass of what it names), or the words of a
	// relation the rules do not run ("returns an instance of").
	Relation string `json:"relation,omitempty"`
	// Subjects are the dotted and backquoted names of the question, the
	// class a relation is checked against among them.
	Subjects []string `json:"subjects,omitempty"`
	// question is the question as written, for the claims' words.
	question string
}

var (
	// negativeMembership words a claim that the answer is NOT a member:
	// the answer is the absent name.
	negativeMembership = regexp.MustCompile(`(?i)(\b(does|do|did|is|are|was|were|has|have|can)\b(?:[^?.,;]|\.\S){0,60}?\s*\b(not|n't)\s+(have|provide|accept|take|define|support|contain|include|expose|offer|exist|implement|carry|belong|a|an|one|part|available|valid|listed|defined|accepted|supported|present)\b|\b(doesn't|don't|didn't|isn't|aren't|wasn't|weren't|hasn't|haven't)\s+(have|provide|accept|take|define|support|contain|include|expose|offer|exist|implement|carry|belong|a|an|one|part|available|valid|listed|defined|accepted|supported|present)\b|\bno longer\b|\b(was|were|is|are|has been|have been|got|been)\s+(removed|dropped|deleted|gone|retired|eliminated|discontinued|unavailable)\b|\bnot\s+(a|an)\s+(valid\s+)?(method|attribute|parameter|argument|keyword|member|field|function|property|class|constant|submodule)s?\b|\b(lacks?|missing from|absent from)\b)`)
	// negationWord is any negation; outside the patterns above it makes
	// the polarity unclear.
	negationWord = regexp.MustCompile(`(?i)(\b(not|never|no|none|neither|nor|cannot|without|except|lacks?|missing|absent|removed|dropped|deleted|deprecated|obsolete|unsupported|unavailable|invalid|gone|retired|eliminated|discontinued)\b|n't\b)`)

	defaultWords = regexp.MustCompile(`(?i)\bdefaults?\b|\bdefault value\b`)
	// raiseWords ask what a call raises; exceptionWords with an answer
	// named like an exception class ask it too.
	raiseWords     = regexp.MustCompile(`(?i)\b(raises?|raised|raising|throws?|thrown)\b`)
	exceptionWords = regexp.MustCompile(`(?i)\b(exceptions?|errors?)\b`)
	exceptionName  = regexp.MustCompile(`(Error|Exception|Warning|Exit|Interrupt|StopIteration|StopAsyncIteration)$`)
	// quotedMessage is an answer in quotes: under an exception question,
	// the message of what the call raises.
	quotedMessage = regexp.MustCompile(`^(?s)('.*'|".*")$`)
	// paramKindWords name a kind of parameter.
	paramKindWords = []struct {
		re   *regexp.Regexp
		kind string
	}{
		{regexp.MustCompile(`(?i)\bpositional[- ]only\b`), "positional-only"},
		{regexp.MustCompile(`(?i)\bkeyword[- ]only\b`), "keyword-only"},
		{regexp.MustCompile(`(?i)\bvar[- ]positional\b|\bvariadic positional\b`), "var-positional"},
		{regexp.MustCompile(`(?i)\bvar[- ]keyword\b|\bvariadic keyword\b`), "var-keyword"},
	}
	// Relations a question asks of its answer. A base class is checked
	// against __bases__ or the MRO, a subclass against the answer's MRO;
	// the others are read so that a name's existence never stands for
	// them.
	directBaseWords = regexp.MustCompile(`(?i)\b(direct|immediate)\s+(base|parent|super)\s*class(es)?\b|__bases__`)
	baseWords       = regexp.MustCompile(`(?i)\b(base|parent|super)\s*class(es)?\b|\bancestors?\b|\bMRO\b|__mro__|method resolution order`)
	inheritWords    = regexp.MustCompile(`(?i)\b(inherits?|inherited|derives?|derived|subclass(es|ed)?)\s+(directly\s+)?(from|of)\b|\bis\s+a\s+subclass\b|\bsubclass(es)?\s+of\b|` + "`" + `[A-Za-z_][A-Za-z0-9_.]*` + "`" + `\s+subclass(es)?\b`)
	otherRelations  = regexp.MustCompile(`(?i)\breturns?\s+(an?\s+)?(instance|object)s?\s+of\b|\breturn\s+type\b|\bis\s+an\s+instance\s+of\b|\bmetaclass\b`)
	dottedName      = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+`)
	// otherPlatform names a platform other than the Linux the sandbox
	// runs on.
	otherPlatform = regexp.MustCompile(`(?i)\b(windows|win32|win64|macos|mac os|os x|darwin|freebsd|cygwin|android|ios|wasi|emscripten)\b`)
	// asksValue is a question that asks for a value, whatever the
	// answer looks like ("what is the default of extra": ignore).
	asksValue  = regexp.MustCompile(`(?i)^\s*what(\s+is|'s)?\s+the\s+(default|value)\b|^\s*what\s+(default|value)\b`)
	valueWords = regexp.MustCompile(`(?i)\b(value|values|equal|equals|evaluates?|returns?|returned|result|holds?|number|how many|how much|what is the (size|length|count))\b`)
	backquoted = regexp.MustCompile("`([^`]+)`")
	callExpr   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\(.*\)$`)
	// literalCall is a call on a literal receiver ([].pop(),
	// 'é'.encode('ascii'), {}['k'] is not one) or an operation the
	// generated test parses and runs the same way (1 / 0).
	literalCall = regexp.MustCompile(`^(\[.*\]|\(.*\)|\{.*\}|'.*'|".*"|b'.*'|b".*"|[0-9][0-9.]*)\s*(\.[A-Za-z_][A-Za-z0-9_]*\(.*\)|\[.*\]|\s*[-+*/%]{1,2}\s*\S.*)$`)
	wordPattern = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	// literalNames are values spelled like identifiers: they are never
	// looked up as member names.
	literalNames = map[string]bool{"None": true, "True": true, "False": true, "Ellipsis": true, "NotImplemented": true}
)

// ReadShape reads the shape of a question and one of its answers.
func ReadShape(question, answer string) Shape {
	s := Shape{Kind: ClaimKind(question), Polarity: PolarityOf(question), question: question}
	if m := otherPlatform.FindString(question); m != "" {
		s.Platform = m
	}
	for _, pk := range paramKindWords {
		if pk.re.MatchString(question) {
			// "the positional-only parameter ... that takes the function"
			// asks a parameter, whatever other words it has.
			s.ParamKind, s.Kind = pk.kind, KindKeyword
			break
		}
	}
	if s.ParamKind == "" && keywordParameter.MatchString(question) {
		// "which keyword argument of dict.get ..." asks a parameter that
		// a call can name: a positional-only one (dict.get's default) is
		// not one.
		s.ParamKind = "keyword"
	}
	// An exception question is one whose answer is an exception (or the
	// message of one, in quotes): "which method throws GeneratorExit into
	// the generator" asks for a method, not what a call raises.
	a := strings.TrimSpace(answer)
	asksException := (raiseWords.MatchString(question) || exceptionWords.MatchString(question)) &&
		(exceptionName.MatchString(a) || quotedMessage.MatchString(a))
	if !IsValueAnswer(answer) && (!asksException || !raiseWords.MatchString(question)) {
		// "Which class in the MRO of KeyError ..." asks a relation, even
		// of an exception; "which exception does f() raise" does not.
		if s.Relation, s.Subjects = relationOf(question, a); s.Relation != "" {
			return s
		}
	}
	if !IsValueAnswer(answer) && !asksException && !asksValue.MatchString(question) {
		return s
	}
	switch {
	case asksException && negationWord.MatchString(backquoted.ReplaceAllString(question, "``")):
		// "Which of these is NOT raised by `[].pop()`": running the call
		// tells what it raises, and the rules do not read which of the
		// others the question means; the claim stays neutral, undecided.
		s.Value = ValueOther
	case asksException:
		s.Value = ValueException
		for _, m := range backquoted.FindAllStringSubmatch(question, -1) {
			if c := strings.TrimSpace(m[1]); callExpr.MatchString(c) || literalCall.MatchString(c) {
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
	loc := negativeMembership.FindStringIndex(question)
	negAt := 0
	if loc != nil {
		negAt = loc[0]
		if n := negationWord.FindStringIndex(question[loc[0]:loc[1]]); n != nil {
			negAt += n[0]
		}
	}
	switch {
	case loc != nil && subordinate.MatchString(clauseBefore(question, negAt)):
		// "which parameter is returned when the attribute does not
		// exist": the negation is the condition's, not the claim's.
		return Unclear
	case loc != nil:
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
	if s.Relation != "" {
		return relationClaim(answer, names, s)
	}
	if s.Polarity == Negative {
		return fmt.Sprintf("%s is not %s of %s, as the question says", answer, kindWords[s.Kind], strings.Join(owners(names, answer), " or "))
	}
	if s.ParamKind != "" {
		return fmt.Sprintf("the answer %s is a %s parameter of %s", answer, s.ParamKind, of)
	}
	return fmt.Sprintf("the answer %s is the name or %s of %s", answer, kindWords[s.Kind], of)
}

// relationWords word each relation a question may ask.
var relationWords = map[string]string{
	"direct_base": "a direct base class of",
	"ancestor":    "a base class (in the MRO) of",
	"descendant":  "a subclass of",
}

// relationClaim words the relation the question asks between the answer
// and what it names, so that the right answer makes it true.
func relationClaim(answer string, names []string, s Shape) string {
	subject := ""
	isPrefix := func(n string) bool {
		for _, m := range names {
			if strings.HasPrefix(m, n+".") {
				return true // a module of a name (collections), not a class
			}
		}
		return false
	}
	for _, n := range append(append([]string{}, s.Subjects...), names...) {
		if _, last, _ := cutLast(n); last != answer && n != answer && !isPrefix(n) {
			subject = n
			break
		}
	}
	if w, ok := relationWords[s.Relation]; ok && subject != "" {
		return fmt.Sprintf("%s is %s %s, as the question asks", answer, w, subject)
	}
	about := subject
	if about == "" {
		about = strings.Join(names, " or ")
	}
	return fmt.Sprintf("%s stands in the relation the question asks (%s) to %s", answer, strings.ReplaceAll(s.Relation, "_", " "), about)
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
	if s.Value != ValueNone || s.Polarity == Negative || s.Relation != "" {
		return answerClaim(answer, names, s)
	}
	if s.Polarity == Unclear {
		// A negation the rules did not read: the claim keeps it, so that
		// the right answer to "which one does X NOT provide" makes it
		// true.
		return fmt.Sprintf("%s is the answer to the question as it is worded, with its negation (%s), about %s", answer,
			strings.TrimSpace(negationWord.FindString(s.question)), strings.Join(owners(names, answer), " or "))
	}
	of := strings.Join(owners(names, answer), " or ")
	return fmt.Sprintf("%s is %s of %s, or of what it returns or decorates, as the question asks", answer, kindWords[s.Kind], of)
}

// relationOf reads the relation a question asks of its answer and the
// names it may ask it of ("the direct base class of collections.Counter").
// "X inherits from which class" asks an ancestor of X, "which class
// inherits from X" a descendant: the side the named class stands on
// decides.
func relationOf(question, answer string) (string, []string) {
	var subjects []string
	seen := map[string]bool{answer: true}
	add := func(n string) {
		n = strings.Trim(strings.TrimSpace(n), ".()")
		if n != "" && !seen[n] && ident.FQN.Match(n) {
			seen[n] = true
			subjects = append(subjects, n)
		}
	}
	for _, m := range backquoted.FindAllStringSubmatch(question, -1) {
		callee, _, _ := strings.Cut(m[1], "(") // open for `open(path)`
		add(callee)
	}
	for _, m := range dottedName.FindAllString(question, -1) {
		add(m)
	}
	switch {
	case directBaseWords.MatchString(question):
		return "direct_base", subjects
	case baseWords.MatchString(question):
		return "ancestor", subjects
	case inheritWords.MatchString(question):
		at := inheritWords.FindStringIndex(question)[0]
		for _, n := range subjects {
			if i := strings.Index(question, n); i >= 0 && i > at {
				return "descendant", subjects
			}
		}
		return "ancestor", subjects
	case otherRelations.MatchString(question):
		return strings.ToLower(otherRelations.FindString(question)), subjects
	}
	return "", nil
}

// subordinate opens a clause whose negation conditions the claim instead
// of negating it.
var subordinate = regexp.MustCompile(`(?i)\b(when|whenever|if|unless|once|where|after|before|because|since|while)\b`)

// clauseBefore is the question's text from the start of the sentence
// clause holding position at up to it.
func clauseBefore(question string, at int) string {
	start := strings.LastIndexAny(question[:at], "?!;,:")
	return question[start+1 : at]
}
