package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/adk/tool"
	"google.golang.org/adk/tool/functiontool"

	"github.com/benchgate/benchgate/internal/ident"
	"github.com/benchgate/benchgate/internal/textfmt"
)

// InspectTool is the research tool of the analyst and the engineer: it
// shows the signature and documentation of a name in the installed library,
// so claims are grounded in the real API rather than in the model's memory.
const InspectTool = "inspect_fqn"

// inspectSource is a pytest file that imports fqn and fails on purpose with
// its signature and documentation as the message: the sandbox reports a
// failure's message, and running through the sandbox keeps the same
// isolation (scrubbed environment, timeout, no network) as the proofs.
func inspectSource(fqn string) string {
	return `import importlib
import inspect
import pydoc


def test_inspect():
    name = "` + fqn + `"
    parts = name.split(".")
    obj = None
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        break
    else:
        raise AssertionError("cannot import any prefix of " + name)
    try:
        sig = name + str(inspect.signature(obj))
    except (TypeError, ValueError):
        sig = name
    doc = pydoc.plain(pydoc.render_doc(obj, renderer=pydoc.plaintext))
    raise AssertionError("INSPECT " + sig + "\n" + doc[:6000])
`
}

type inspectArgs struct {
	FQN string `json:"fqn" jsonschema:"fully qualified Python name, e.g. json.dumps or google.adk.agents.LlmAgent"`
}

type inspectResult struct {
	FQN    string `json:"fqn"`
	Result string `json:"result"`
}

func (a *Auditor) newInspectTool(dir string) (tool.Tool, error) {
	n := 0
	return functiontool.New(functiontool.Config{
		Name:        InspectTool,
		Description: "Shows the signature and documentation of a module, class, function or attribute of the installed library, by its fully qualified name.",
	}, func(tc tool.Context, args inspectArgs) (inspectResult, error) {
		fqn := strings.TrimSpace(args.FQN)
		if !ident.FQN.Match(fqn) {
			return inspectResult{}, fmt.Errorf("%q is not a dotted Python name", args.FQN)
		}
		n++
		d := filepath.Join(dir, fmt.Sprintf("inspect_%d", n))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return inspectResult{}, err
		}
		pr, err := a.cfg.Prover.Prove(tc, d, "inspect", inspectSource(fqn))
		if err != nil {
			return inspectResult{}, fmt.Errorf("inspecting %s: %w", fqn, err)
		}
		msg := pr.Message
		if i := strings.Index(msg, "INSPECT "); i >= 0 {
			msg = msg[i+len("INSPECT "):]
		} else if pr.Outcome == "passed" {
			return inspectResult{}, errors.New("inspection produced no result")
		}
		return inspectResult{FQN: fqn, Result: textfmt.Truncate(msg, 6000)}, nil
	})
}
