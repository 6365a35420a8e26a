package suite

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/benchgate/benchgate/internal/ident"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// The decoder below is written for the row schema instead of going through
// encoding/json's reflection: the report reads a million rows in a few
// seconds only this way (docs/performance.md has the measurement). It
// checks the same things a schema validator would: every required key is
// present, each value has its type, and nullable keys may be null.

// Presence bits of the required keys.
const (
	hasTimestamp = 1 << iota
	hasRunID
	hasMode
	hasScenarioID
	hasScenarioSet
	hasIteration
	hasSessionID
	hasSuccess
	hasOutputValid
	hasLatencyWall
	hasSDKLatency
	hasTokens
	hasCost
	hasToolCalls
	hasAPICalls
	hasInternalRetry
	hasExternalRetry
	hasModel
	hasGit
	hasError
)

var requiredRowKeys = []struct {
	bit  uint32
	name string
	typ  string
}{
	{hasTimestamp, "timestamp", "string"},
	{hasRunID, "run_id", "string"},
	{hasMode, "mode", "one of agent_direct, mcp, ghx"},
	{hasScenarioID, "scenario_id", "string"},
	{hasScenarioSet, "scenario_set", "string or null"},
	{hasIteration, "iteration", "integer"},
	{hasSessionID, "session_id", "string or null"},
	{hasSuccess, "success", "boolean"},
	{hasOutputValid, "output_valid", "boolean"},
	{hasLatencyWall, "latency_ms_wall", "number"},
	{hasSDKLatency, "sdk_latency_ms", "number or null"},
	{hasTokens, "tokens", "object"},
	{hasCost, "cost", "number"},
	{hasToolCalls, "tool_calls", "number"},
	{hasAPICalls, "api_calls", "number"},
	{hasInternalRetry, "internal_retry_count", "number"},
	{hasExternalRetry, "external_retry_count", "number"},
	{hasModel, "model", "object"},
	{hasGit, "git", "object"},
	{hasError, "error", "object or null"},
}

// decoder walks one line. Strings that repeat across rows (mode, scenario
// id, set, model names) are interned so a million rows do not hold a
// million copies of them.
type decoder struct {
	buf       []byte
	pos       int
	intern    map[string]string
	internPtr map[string]*string
	// goodIDs holds the scenario IDs already checked against the
	// benchmark's pattern, so that a repeated ID is checked once.
	goodIDs map[string]struct{}
	scratch []byte
	// upstream reads rows as upstream's report does (ReadOptions.Upstream).
	upstream bool
}

func newDecoder() *decoder {
	return &decoder{intern: make(map[string]string), internPtr: make(map[string]*string), goodIDs: make(map[string]struct{})}
}

var errSyntax = errors.New("syntax")

// decodeRow fills r from line. r must be zero on entry.
func (d *decoder) decodeRow(line []byte, r *Row) error {
	d.buf, d.pos = line, 0
	d.skipSpace()
	if d.pos >= len(d.buf) || d.buf[d.pos] != '{' {
		return &Diagnostic{Field: "row", Expected: "a JSON object", Got: d.describe()}
	}
	// r stays out of st so that the row does not escape with the extras.
	var st rowState
	if err := d.object("", func(key []byte) error { return d.rowKey(key, r, &st) }); err != nil {
		return err
	}
	d.skipSpace()
	if d.pos != len(d.buf) {
		return &Diagnostic{Field: "row", Expected: "end of line after the JSON object", Got: d.excerpt()}
	}
	return missingRowKey(st.seen)
}

// missingRowKey names the first required key that seen lacks.
func missingRowKey(seen uint32) error {
	for _, k := range requiredRowKeys {
		if seen&k.bit == 0 {
			return &Diagnostic{Field: k.name, Expected: k.typ, Got: "missing key"}
		}
	}
	return nil
}

// rowState is what decoding one row carries from key to key: the
// required keys met so far, and the targets of the row's pointer fields,
// which share one allocation made for the first of them.
type rowState struct {
	seen uint32
	ex   *rowExtras
}

func (st *rowState) extras() *rowExtras {
	if st.ex == nil {
		st.ex = new(rowExtras)
	}
	return st.ex
}

// rowKey decodes the value of one key of the row, the cursor on it.
func (d *decoder) rowKey(key []byte, r *Row, st *rowState) error {
	switch string(key) {
	case "timestamp":
		st.seen |= hasTimestamp
		return d.strInto("timestamp", &r.Timestamp)
	case "run_id":
		st.seen |= hasRunID
		return d.strInto("run_id", &r.RunID)
	case "mode":
		st.seen |= hasMode
		return d.mode(&r.Mode)
	case "scenario_id":
		st.seen |= hasScenarioID
		return d.scenarioID(&r.ScenarioID)
	case "scenario_set":
		st.seen |= hasScenarioSet
		p, err := d.nullStr("scenario_set", true)
		r.ScenarioSet = p
		return err
	case "iteration":
		st.seen |= hasIteration
		return d.iteration(&r.Iteration)
	case "session_id":
		st.seen |= hasSessionID
		return d.sessionID(r, st)
	case "success":
		st.seen |= hasSuccess
		return d.boolInto("success", &r.Success)
	case "output_valid":
		st.seen |= hasOutputValid
		return d.boolInto("output_valid", &r.OutputValid)
	case "latency_ms_wall":
		st.seen |= hasLatencyWall
		return d.countInto("latency_ms_wall", &r.LatencyMsWall)
	case "latency_ms_agent":
		return d.nullCountInto("latency_ms_agent", &st.extras().agent, &r.LatencyMsAgent)
	case "sdk_latency_ms":
		st.seen |= hasSDKLatency
		return d.nullCountInto("sdk_latency_ms", &st.extras().sdk, &r.SDKLatencyMs)
	case "tokens":
		st.seen |= hasTokens
		return d.tokens(&r.Tokens)
	case "cost":
		st.seen |= hasCost
		return d.countInto("cost", &r.Cost)
	case "tool_calls":
		st.seen |= hasToolCalls
		return d.countInto("tool_calls", &r.ToolCalls)
	case "api_calls":
		st.seen |= hasAPICalls
		return d.countInto("api_calls", &r.APICalls)
	case "internal_retry_count":
		st.seen |= hasInternalRetry
		return d.countInto("internal_retry_count", &r.InternalRetryCount)
	case "external_retry_count":
		st.seen |= hasExternalRetry
		return d.countInto("external_retry_count", &r.ExternalRetryCount)
	case "model":
		st.seen |= hasModel
		return d.model(&r.Model)
	case "git":
		st.seen |= hasGit
		return d.git(&r.Git)
	case "error":
		st.seen |= hasError
		return d.nullRowError(r, st)
	case "timing_breakdown":
		return d.optionalTiming(r, st)
	default:
		return d.skipValue(string(key))
	}
}

// strInto decodes a string the row keeps as it is written.
func (d *decoder) strInto(field string, dst *string) error {
	s, err := d.str(field, false)
	*dst = s
	return err
}

func (d *decoder) boolInto(field string, dst *bool) error {
	b, err := d.boolean(field)
	*dst = b
	return err
}

// countInto decodes a number that counts something (at least 0).
func (d *decoder) countInto(field string, dst *float64) error {
	v, err := d.count(field)
	*dst = v
	return err
}

// nullCountInto decodes a count or null into slot and points dst at slot,
// or at nothing for null: a repeated key keeps its last value, as
// JSON.parse does.
func (d *decoder) nullCountInto(field string, slot *float64, dst **float64) error {
	null, err := d.nullCount(field, slot)
	if null {
		*dst = nil
	} else if err == nil {
		*dst = slot
	}
	return err
}

// sessionID decodes a string or null.
func (d *decoder) sessionID(r *Row, st *rowState) error {
	if d.isNull() {
		// A repeated key keeps its last value, as JSON.parse does.
		r.SessionID = nil
		return nil
	}
	if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
		return &Diagnostic{Field: "session_id", Expected: "string or null", Got: d.describeValue()}
	}
	s, err := d.str("session_id", false)
	if err != nil {
		return err
	}
	e := st.extras()
	e.session = s
	r.SessionID = &e.session
	return nil
}

// nullRowError decodes the error object or null.
func (d *decoder) nullRowError(r *Row, st *rowState) error {
	if d.isNull() {
		r.Error = nil
		return nil
	}
	r.Error = &st.extras().err
	return d.rowError(r.Error)
}

// optionalTiming decodes timing_breakdown. It is optional, not nullable:
// the benchmark's schema refuses null here, so a row it would not read
// is not read either.
func (d *decoder) optionalTiming(r *Row, st *rowState) error {
	if d.pos < len(d.buf) && d.buf[d.pos] == 'n' {
		return &Diagnostic{Field: "timing_breakdown", Expected: "object or absent", Got: d.describeValue()}
	}
	r.TimingBreakdown = &st.extras().tb
	return d.timing(r.TimingBreakdown)
}

// mode decodes the row's mode, one of the three the benchmark runs.
func (d *decoder) mode(dst *string) error {
	s, err := d.str("mode", true)
	if err != nil {
		return &Diagnostic{Field: "mode", Expected: "one of agent_direct, mcp, ghx", Got: err.(*Diagnostic).Got}
	}
	if !IsMode(s) {
		return &Diagnostic{Field: "mode", Expected: "one of agent_direct, mcp, ghx", Got: strconv.Quote(s)}
	}
	*dst = s
	return nil
}

// scenarioID decodes a scenario ID of the benchmark's pattern.
func (d *decoder) scenarioID(dst *string) error {
	s, err := d.str("scenario_id", true)
	if err != nil {
		return err
	}
	if err := d.checkScenarioID(s); err != nil {
		return err
	}
	*dst = s
	return nil
}

// iteration decodes an integer of at least 1.
func (d *decoder) iteration(dst *int) error {
	f, err := d.num("iteration")
	if err != nil {
		return &Diagnostic{Field: "iteration", Expected: "integer", Got: err.(*Diagnostic).Got}
	}
	if f != float64(int(f)) {
		return &Diagnostic{Field: "iteration", Expected: "integer", Got: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	if f < 1 {
		return &Diagnostic{Field: "iteration", Expected: "an integer of at least 1", Got: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	*dst = int(f)
	return nil
}

func (d *decoder) tokens(t *Tokens) error {
	var seen uint8
	names := [...]string{"tokens.input", "tokens.output", "tokens.reasoning", "tokens.cache_read", "tokens.cache_write", "tokens.total"}
	fields := [...]*float64{&t.Input, &t.Output, &t.Reasoning, &t.CacheRead, &t.CacheWrite, &t.Total}
	err := d.objectValue("tokens", func(key []byte) error {
		i := -1
		switch string(key) {
		case "input":
			i = 0
		case "output":
			i = 1
		case "reasoning":
			i = 2
		case "cache_read":
			i = 3
		case "cache_write":
			i = 4
		case "total":
			i = 5
		default:
			return d.skipValue("tokens." + string(key))
		}
		seen |= 1 << i
		f, err := d.count(names[i])
		*fields[i] = f
		return err
	})
	if err != nil {
		return err
	}
	for i, n := range names {
		if seen&(1<<i) == 0 {
			return &Diagnostic{Field: n, Expected: "number", Got: "missing key"}
		}
	}
	return nil
}

func (d *decoder) model(m *Model) error {
	var seen uint8
	err := d.objectValue("model", func(key []byte) error {
		var err error
		switch string(key) {
		case "provider_id":
			seen |= 1
			m.ProviderID, err = d.str("model.provider_id", true)
		case "model_id":
			seen |= 2
			m.ModelID, err = d.str("model.model_id", true)
		case "mode":
			seen |= 4
			m.Mode, err = d.nullStr("model.mode", true)
		default:
			err = d.skipValue("model." + string(key))
		}
		return err
	})
	if err != nil {
		return err
	}
	return missing(seen, []string{"model.provider_id", "model.model_id", "model.mode"}, []string{"string", "string", "string or null"})
}

func (d *decoder) git(g *Git) error {
	var seen uint8
	err := d.objectValue("git", func(key []byte) error {
		var err error
		switch string(key) {
		case "repo":
			seen |= 1
			g.Repo, err = d.nullStr("git.repo", true)
		case "commit":
			seen |= 2
			g.Commit, err = d.nullStr("git.commit", true)
		default:
			err = d.skipValue("git." + string(key))
		}
		return err
	})
	if err != nil {
		return err
	}
	return missing(seen, []string{"git.repo", "git.commit"}, []string{"string or null", "string or null"})
}

func (d *decoder) rowError(e *RowError) error {
	var seen uint8
	err := d.objectValue("error", func(key []byte) error {
		var err error
		switch string(key) {
		case "type":
			seen |= 1
			e.Type, err = d.str("error.type", true)
		case "message":
			seen |= 2
			e.Message, err = d.str("error.message", false)
		default:
			err = d.skipValue("error." + string(key))
		}
		return err
	})
	if err != nil {
		if fe, ok := err.(*Diagnostic); ok && fe.Field == "error" {
			fe.Expected = "object or null"
		}
		return err
	}
	return missing(seen, []string{"error.type", "error.message"}, []string{"string", "string"})
}

func (d *decoder) timing(t *TimingBreakdown) error {
	fields := [...]*float64{
		&t.AssistantTotalMs, &t.AssistantPreReasoningMs, &t.AssistantReasoningMs,
		&t.AssistantBetweenReasoningAndToolMs, &t.AssistantPostToolMs, &t.ToolTotalMs,
		&t.ToolBashMs, &t.ToolStructuredOutputMs, &t.ObservedAssistantTurns,
	}
	var seen uint16
	err := d.objectValue("timing_breakdown", func(key []byte) error {
		i := timingIndex(key)
		if i < 0 {
			return d.skipValue("timing_breakdown." + string(key))
		}
		seen |= 1 << i
		if d.upstream {
			// Upstream reads sub-timings as any number; a negative one
			// (clock skew between its events) is reported, not refused.
			f, err := d.num(timingFields[i])
			*fields[i] = f
			return err
		}
		f, err := d.count(timingFields[i])
		*fields[i] = f
		return err
	})
	if err != nil {
		if fe, ok := err.(*Diagnostic); ok && fe.Field == "timing_breakdown" {
			fe.Expected = "object or absent"
		}
		return err
	}
	for i, k := range timingFields {
		if seen&(1<<i) == 0 {
			return &Diagnostic{Field: k, Expected: "number", Got: "missing key"}
		}
	}
	return nil
}

var timingKeys = [...]string{
	"assistant_total_ms", "assistant_pre_reasoning_ms", "assistant_reasoning_ms",
	"assistant_between_reasoning_and_tool_ms", "assistant_post_tool_ms", "tool_total_ms",
	"tool_bash_ms", "tool_structured_output_ms", "observed_assistant_turns",
}

// timingIndex is the position of key in timingKeys, or -1.
func timingIndex(key []byte) int {
	switch string(key) {
	case "assistant_total_ms":
		return 0
	case "assistant_pre_reasoning_ms":
		return 1
	case "assistant_reasoning_ms":
		return 2
	case "assistant_between_reasoning_and_tool_ms":
		return 3
	case "assistant_post_tool_ms":
		return 4
	case "tool_total_ms":
		return 5
	case "tool_bash_ms":
		return 6
	case "tool_structured_output_ms":
		return 7
	case "observed_assistant_turns":
		return 8
	}
	return -1
}

var timingFields = func() (out [len(timingKeys)]string) {
	for i, k := range timingKeys {
		out[i] = "timing_breakdown." + k
	}
	return out
}()

func missing(seen uint8, names, types []string) error {
	for i, n := range names {
		if seen&(1<<i) == 0 {
			return &Diagnostic{Field: n, Expected: types[i], Got: "missing key"}
		}
	}
	return nil
}

// objectValue expects an object at the cursor for the named field.
func (d *decoder) objectValue(field string, fn func(key []byte) error) error {
	d.skipSpace()
	if d.pos >= len(d.buf) || d.buf[d.pos] != '{' {
		return &Diagnostic{Field: field, Expected: "object", Got: d.describeValue()}
	}
	return d.object(field, fn)
}

// object walks the members of the object at the cursor, calling fn with
// each key and the cursor on its value; fn must consume the value.
func (d *decoder) object(field string, fn func(key []byte) error) error {
	d.pos++ // '{'
	d.skipSpace()
	if d.pos < len(d.buf) && d.buf[d.pos] == '}' {
		d.pos++
		return nil
	}
	where := field
	if where == "" {
		where = "row"
	}
	for {
		d.skipSpace()
		if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
			return d.syntax(where, "an object key")
		}
		key, err := d.rawString()
		if err != nil {
			return d.syntax(where, "a complete object key")
		}
		d.skipSpace()
		if d.pos >= len(d.buf) || d.buf[d.pos] != ':' {
			return d.syntax(where, "':' after an object key")
		}
		d.pos++
		d.skipSpace()
		if err := fn(key); err != nil {
			return err
		}
		d.skipSpace()
		if d.pos >= len(d.buf) {
			return d.syntax(where, "',' or '}'")
		}
		switch d.buf[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return d.syntax(where, "',' or '}'")
		}
	}
}

// syntax reports malformed JSON; at the end of the line that is the mark of
// a truncated row, which is what a killed benchmark leaves behind.
func (d *decoder) syntax(field, expected string) error {
	if d.pos >= len(d.buf) {
		return &Diagnostic{Field: field, Expected: expected, Got: "end of line (truncated row)"}
	}
	return &Diagnostic{Field: field, Expected: expected, Got: d.describe()}
}

// describe names the value at the cursor for an error message.
func (d *decoder) describe() string {
	if d.pos >= len(d.buf) {
		return "end of line (truncated row)"
	}
	switch c := d.buf[d.pos]; {
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	default:
		return d.excerpt()
	}
}

// describeValue names the value at the cursor where a field's value is
// read: a bare word (ghx, tru, nul) is no JSON, and saying so keeps the
// message from reading as if the quoted value had been given.
func (d *decoder) describeValue() string {
	if d.pos < len(d.buf) {
		c := d.buf[d.pos]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' {
			if lit := d.word(); lit != "true" && lit != "false" && lit != "null" {
				return "text outside quotes, not JSON: " + strconv.Quote(lit)
			}
		}
	}
	return d.describe()
}

// excerpt is the text at the cursor, quoted, at most 20 bytes.
func (d *decoder) excerpt() string {
	end := min(d.pos+20, len(d.buf))
	return strconv.Quote(string(d.buf[d.pos:end]))
}

// word is the run of letters, digits and underscores at the cursor (at
// most 20 bytes), the bare word a row holds where JSON wants a quoted
// string or a literal.
func (d *decoder) word() string {
	end := d.pos
	for end < len(d.buf) && end-d.pos < 20 {
		c := d.buf[end]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			break
		}
		end++
	}
	return string(d.buf[d.pos:end])
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.buf) {
		switch d.buf[d.pos] {
		case ' ', '\t', '\r', '\n':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) isNull() bool {
	if len(d.buf)-d.pos >= 4 && string(d.buf[d.pos:d.pos+4]) == "null" {
		d.pos += 4
		return true
	}
	return false
}

// str reads a string value; intern says whether the value repeats across
// rows and should be shared.
func (d *decoder) str(field string, intern bool) (string, error) {
	if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
		return "", &Diagnostic{Field: field, Expected: "string", Got: d.describeValue()}
	}
	b, err := d.rawString()
	if err != nil {
		return "", &Diagnostic{Field: field, Expected: "a complete JSON string", Got: err.Error()}
	}
	if intern {
		if s, ok := d.intern[string(b)]; ok {
			return s, nil
		}
		s := string(b)
		if len(d.intern) < 1<<16 {
			d.intern[s] = s
		}
		return s, nil
	}
	return string(b), nil
}

func (d *decoder) nullStr(field string, intern bool) (*string, error) {
	if d.isNull() {
		return nil, nil
	}
	if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
		return nil, &Diagnostic{Field: field, Expected: "string or null", Got: d.describeValue()}
	}
	s, err := d.str(field, intern)
	if err != nil {
		return nil, err
	}
	if intern {
		// Rows share the pointer too: the value is never written through.
		if p, ok := d.internPtr[s]; ok {
			return p, nil
		}
		p := &s
		if len(d.internPtr) < 1<<16 {
			d.internPtr[s] = p
		}
		return p, nil
	}
	return &s, nil
}

func (d *decoder) boolean(field string) (bool, error) {
	rest := d.buf[d.pos:]
	if len(rest) >= 4 && string(rest[:4]) == "true" {
		d.pos += 4
		return true, nil
	}
	if len(rest) >= 5 && string(rest[:5]) == "false" {
		d.pos += 5
		return false, nil
	}
	return false, &Diagnostic{Field: field, Expected: "boolean", Got: d.describeValue()}
}

// nullNum reads a number into dst or reports null.
func (d *decoder) nullNum(field string, dst *float64) (null bool, err error) {
	if d.isNull() {
		return true, nil
	}
	if d.pos >= len(d.buf) || !(d.buf[d.pos] == '-' || (d.buf[d.pos] >= '0' && d.buf[d.pos] <= '9')) {
		return false, &Diagnostic{Field: field, Expected: "number or null", Got: d.describeValue()}
	}
	*dst, err = d.num(field)
	return false, err
}

// rowExtras holds what a row's pointer fields point to, so that a row
// costs one allocation for all of them.
type rowExtras struct {
	sdk, agent float64
	session    string
	err        RowError
	tb         TimingBreakdown
}

// num reads a JSON number. Small non-negative integers, which are nearly
// all the numbers in a suite, are parsed without strconv.
func (d *decoder) num(field string) (float64, error) {
	start := d.pos
	v, simple, err := d.scanNumber(field)
	if err != nil {
		return 0, err
	}
	if simple {
		f := float64(v)
		if d.buf[start] == '-' {
			f = -f
		}
		return f, nil
	}
	f, perr := strconv.ParseFloat(string(d.buf[start:d.pos]), 64)
	if perr != nil {
		return 0, d.badNumber(field, start)
	}
	if f > MaxMagnitude || f < -MaxMagnitude {
		return 0, &Diagnostic{Field: field, Expected: fmt.Sprintf("a number of magnitude at most %g", MaxMagnitude), Got: strconv.Quote(string(d.buf[start:d.pos]))}
	}
	return f, nil
}

// scanNumber moves the cursor over one JSON number, checking its syntax.
// simple says it is an integer of at most 15 digits, whose magnitude is v.
func (d *decoder) scanNumber(field string) (v uint64, simple bool, err error) {
	start := d.pos
	if d.pos < len(d.buf) && d.buf[d.pos] == '-' {
		d.pos++
	}
	intStart := d.pos
	for d.pos < len(d.buf) && d.buf[d.pos] >= '0' && d.buf[d.pos] <= '9' {
		v = v*10 + uint64(d.buf[d.pos]-'0')
		d.pos++
	}
	digits := d.pos - intStart
	if digits == 0 {
		d.pos = start
		return 0, false, &Diagnostic{Field: field, Expected: "number", Got: d.describeValue()}
	}
	if digits > 1 && d.buf[intStart] == '0' {
		d.pos = start
		return 0, false, &Diagnostic{Field: field, Expected: "number", Got: "a number with a leading zero"}
	}
	simple = digits <= 15
	if d.pos < len(d.buf) && d.buf[d.pos] == '.' {
		simple = false
		d.pos++
		n := d.pos
		for d.pos < len(d.buf) && d.buf[d.pos] >= '0' && d.buf[d.pos] <= '9' {
			d.pos++
		}
		if d.pos == n {
			return 0, false, d.badNumber(field, start)
		}
	}
	if d.pos < len(d.buf) && (d.buf[d.pos] == 'e' || d.buf[d.pos] == 'E') {
		simple = false
		d.pos++
		if d.pos < len(d.buf) && (d.buf[d.pos] == '+' || d.buf[d.pos] == '-') {
			d.pos++
		}
		n := d.pos
		for d.pos < len(d.buf) && d.buf[d.pos] >= '0' && d.buf[d.pos] <= '9' {
			d.pos++
		}
		if d.pos == n {
			return 0, false, d.badNumber(field, start)
		}
	}
	return v, simple, nil
}

// count reads a number that counts or measures something (tokens, calls,
// cost, milliseconds): a negative one is a corrupted row, whose sums and
// medians would be wrong without a sign of it.
func (d *decoder) count(field string) (float64, error) {
	start := d.pos
	f, err := d.num(field)
	if err == nil && f < 0 {
		return 0, &Diagnostic{Field: field, Expected: "a number of at least 0", Got: strconv.Quote(string(d.buf[start:d.pos]))}
	}
	return f, err
}

// nullCount is count for a nullable key.
func (d *decoder) nullCount(field string, dst *float64) (null bool, err error) {
	null, err = d.nullNum(field, dst)
	if err == nil && !null && *dst < 0 {
		return false, &Diagnostic{Field: field, Expected: "a number of at least 0 or null", Got: strconv.FormatFloat(*dst, 'g', -1, 64)}
	}
	return null, err
}

// checkScenarioID holds a row's scenario ID to the benchmark's own
// pattern, the rule set applies to the IDs it asks for: an ID is printed
// in summaries, annotations and log lines and may name files, so one with
// a path, a newline or a workflow command in it is a bad row.
func (d *decoder) checkScenarioID(s string) error {
	if _, ok := d.goodIDs[s]; ok {
		return nil
	}
	if d.upstream {
		if s == "" {
			return &Diagnostic{Field: "scenario_id", Expected: "a non-empty string", Got: `""`}
		}
		return nil
	}
	if !ident.ScenarioID.Match(s) {
		return &Diagnostic{Field: "scenario_id", Expected: ident.ScenarioID.Expected, Got: strconv.Quote(textfmt.Truncate(s, 80))}
	}
	if len(d.goodIDs) < 1<<16 {
		d.goodIDs[s] = struct{}{}
	}
	return nil
}

func (d *decoder) badNumber(field string, start int) error {
	return &Diagnostic{Field: field, Expected: "number", Got: strconv.Quote(string(d.buf[start:d.pos]))}
}

// rawString reads the string at the cursor and returns its unescaped
// bytes. The result aliases the line or the decoder's scratch buffer and is
// valid until the next call.
func (d *decoder) rawString() ([]byte, error) {
	d.pos++ // opening quote
	start := d.pos
	// Fast path: find the closing quote with IndexByte and accept the
	// span if it is plain printable ASCII, which nearly every string is.
	if q := bytes.IndexByte(d.buf[start:], '"'); q >= 0 {
		seg := d.buf[start : start+q]
		if plainASCII(seg) {
			d.pos = start + q + 1
			return seg, nil
		}
	}
	for d.pos < len(d.buf) {
		c := d.buf[d.pos]
		if c == '"' {
			s := d.buf[start:d.pos]
			d.pos++
			if !utf8.Valid(s) {
				return nil, errors.New("invalid UTF-8 in a string")
			}
			return s, nil
		}
		if c == '\\' {
			return d.escapedString(start)
		}
		if c < 0x20 {
			return nil, errors.New("a control character in a string")
		}
		d.pos++
	}
	return nil, errors.New("end of line inside a string (truncated row)")
}

// plainASCII reports whether b holds only printable ASCII without
// backslashes, eight bytes at a time.
func plainASCII(b []byte) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		if w&highs != 0 { // a byte >= 0x80
			return false
		}
		if (w-0x20*ones)&^w&highs != 0 { // a byte < 0x20
			return false
		}
		if x := w ^ ('\\' * ones); (x-ones)&^x&highs != 0 { // a backslash
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x20 || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

func (d *decoder) escapedString(start int) ([]byte, error) {
	out := append(d.scratch[:0], d.buf[start:d.pos]...)
	for d.pos < len(d.buf) {
		c := d.buf[d.pos]
		switch {
		case c == '"':
			d.pos++
			d.scratch = out
			if !utf8.Valid(out) {
				return nil, errors.New("invalid UTF-8 in a string")
			}
			return out, nil
		case c < 0x20:
			return nil, errors.New("a control character in a string")
		case c != '\\':
			out = append(out, c)
			d.pos++
			continue
		}
		d.pos++
		if d.pos >= len(d.buf) {
			break
		}
		e := d.buf[d.pos]
		d.pos++
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return nil, errors.New("a bad \\u escape in a string")
			}
			if utf16.IsSurrogate(r) {
				// A high surrogate pairs only with a low one that follows
				// at once. Anything else leaves it alone (U+FFFD here, as
				// no UTF-8 string can hold it) and the next escape is read
				// for itself: "\\ud800\\u0041" is U+FFFD then "A".
				pair := utf8.RuneError
				if r < 0xDC00 && d.pos+1 < len(d.buf) && d.buf[d.pos] == '\\' && d.buf[d.pos+1] == 'u' {
					save := d.pos
					d.pos += 2
					r2, ok2 := d.hex4()
					if !ok2 {
						return nil, errors.New("a bad \\u escape in a string")
					}
					if r2 >= 0xDC00 && r2 < 0xE000 {
						pair = utf16.DecodeRune(r, r2)
					} else {
						d.pos = save
					}
				}
				r = pair
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, fmt.Errorf("an unknown escape \\%c in a string", e)
		}
	}
	return nil, errors.New("end of line inside a string (truncated row)")
}

func (d *decoder) hex4() (rune, bool) {
	if d.pos+4 > len(d.buf) {
		return 0, false
	}
	var r rune
	for _, c := range d.buf[d.pos : d.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	d.pos += 4
	return r, true
}

// skipValue consumes any JSON value (an unknown key's), checking its syntax.
func (d *decoder) skipValue(field string) error {
	return d.skipDepth(field, 0)
}

func (d *decoder) skipDepth(field string, depth int) error {
	if depth > 64 {
		return &Diagnostic{Field: field, Expected: "a value nested at most 64 levels deep", Got: "deeper nesting"}
	}
	d.skipSpace()
	if d.pos >= len(d.buf) {
		return d.syntax(field, "a JSON value")
	}
	switch c := d.buf[d.pos]; {
	case c == '"':
		if _, err := d.rawString(); err != nil {
			return &Diagnostic{Field: field, Expected: "a complete JSON string", Got: err.Error()}
		}
		return nil
	case c == '{':
		return d.object(field, func([]byte) error { return d.skipDepth(field, depth+1) })
	case c == '[':
		d.pos++
		d.skipSpace()
		if d.pos < len(d.buf) && d.buf[d.pos] == ']' {
			d.pos++
			return nil
		}
		for {
			if err := d.skipDepth(field, depth+1); err != nil {
				return err
			}
			d.skipSpace()
			if d.pos >= len(d.buf) {
				return d.syntax(field, "',' or ']'")
			}
			if d.buf[d.pos] == ',' {
				d.pos++
				continue
			}
			if d.buf[d.pos] == ']' {
				d.pos++
				return nil
			}
			return d.syntax(field, "',' or ']'")
		}
	case c == 't' || c == 'f':
		_, err := d.boolean(field)
		return err
	case c == 'n':
		if d.isNull() {
			return nil
		}
		return d.syntax(field, "a JSON value")
	case c == '-' || (c >= '0' && c <= '9'):
		// Only the syntax matters: an unknown key's number is never used,
		// so a nanosecond timestamp or 1e400 is as good as 0 here, as it
		// is to JSON.parse.
		_, _, err := d.scanNumber(field)
		return err
	default:
		return d.syntax(field, "a JSON value")
	}
}
