package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"regexp"
	"strings"
	"sync"

	"google.golang.org/adk/model"
	"google.golang.org/genai"

	"github.com/benchgate/benchgate/internal/qaaudit/pipeline"
)

// scriptedModel is a model.LLM that plays all three agents from canned
// material: the analyst returns one claim per option, the engineer calls
// run_option_test with the test source scripted for each option text (so a
// reworded option gets its own test), and the remediation engineer returns
// the scripted proposals of its case in order. It records every request per
// agent so tests can check what each agent was shown.
type scriptedModel struct {
	tests     map[string]string   // option text -> test source
	proposals map[string][]string // case id -> fix JSON per attempt

	mu       sync.Mutex
	requests map[string][]string // agent -> JSON of each request
}

func newScripted(tests map[string]string, proposals map[string][]string) *scriptedModel {
	return &scriptedModel{tests: tests, proposals: proposals, requests: map[string][]string{}}
}

func (m *scriptedModel) Name() string { return "scripted" }

func (m *scriptedModel) Requests(agent string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.requests[agent]...)
}

var (
	roleLine    = regexp.MustCompile(`(?m)^Role: (\S+)`)
	idLine      = regexp.MustCompile(`(?m)^Question \(([^)]+)\):`)
	pendingLine = regexp.MustCompile(`(?m)^Options still to prove: (.*)\.$`)
	optionLine  = regexp.MustCompile(`(?m)^([A-Z]): (.*)$`)
)

func text(c *genai.Content) string {
	if c == nil {
		return ""
	}
	var s []string
	for _, p := range c.Parts {
		s = append(s, p.Text)
	}
	return strings.Join(s, "")
}

func reply(c *genai.Content) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		yield(&model.LLMResponse{Content: c, TurnComplete: true}, nil)
	}
}

func fail(err error) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) { yield(nil, err) }
}

func (m *scriptedModel) GenerateContent(ctx context.Context, req *model.LLMRequest, stream bool) iter.Seq2[*model.LLMResponse, error] {
	var sys string
	if req.Config != nil {
		sys = text(req.Config.SystemInstruction)
	}
	role := roleLine.FindStringSubmatch(sys)
	if role == nil {
		return fail(fmt.Errorf("request without a role line"))
	}
	raw, _ := json.Marshal(struct {
		Contents []*genai.Content
		System   string
	}{req.Contents, sys})
	m.mu.Lock()
	m.requests[role[1]] = append(m.requests[role[1]], string(raw))
	m.mu.Unlock()

	options := map[string]string{}
	for _, o := range optionLine.FindAllStringSubmatch(sys, -1) {
		options[o[1]] = o[2]
	}
	switch role[1] {
	case pipeline.AnalystName:
		last := req.Contents[len(req.Contents)-1]
		calledTool := last != nil && len(last.Parts) > 0 && last.Parts[0].FunctionResponse != nil
		if strings.Contains(sys, "json.dumps") && !calledTool {
			// Research first, as the analyst is told to.
			return reply(&genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: pipeline.InspectTool, Args: map[string]any{"fqn": "json.dumps"}}}}})
		}
		var claims []map[string]string
		for k, t := range options {
			claims = append(claims, map[string]string{"option": k, "hypothesis": "the option holds: " + t})
		}
		b, _ := json.Marshal(map[string]any{"claims": claims})
		return reply(genai.NewContentFromText("```json\n"+string(b)+"\n```", genai.RoleModel))
	case pipeline.EngineerName:
		if last := req.Contents[len(req.Contents)-1]; last != nil && len(last.Parts) > 0 && last.Parts[0].FunctionResponse != nil {
			return reply(genai.NewContentFromText("Tests ran.", genai.RoleModel))
		}
		p := pendingLine.FindStringSubmatch(sys)
		if p == nil {
			return reply(&genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "exit_loop", Args: map[string]any{}}}}})
		}
		c := &genai.Content{Role: genai.RoleModel}
		for _, k := range strings.Split(p[1], ", ") {
			src, ok := m.tests[options[k]]
			if !ok {
				return fail(fmt.Errorf("no scripted test for option %s %q", k, options[k]))
			}
			c.Parts = append(c.Parts, &genai.Part{FunctionCall: &genai.FunctionCall{Name: pipeline.RunTestTool, Args: map[string]any{"option": k, "code": src}}})
		}
		return reply(c)
	case pipeline.RemediationName:
		id := idLine.FindStringSubmatch(sys)
		n := strings.Count(sys, "Proof for your proposal")
		props := m.proposals[id[1]]
		if n >= len(props) {
			return reply(genai.NewContentFromText("{}", genai.RoleModel))
		}
		return reply(genai.NewContentFromText(props[n], genai.RoleModel))
	}
	return fail(fmt.Errorf("unknown role %s", role[1]))
}
