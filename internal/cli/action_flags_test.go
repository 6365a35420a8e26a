package cli_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/action"
	"github.com/benchgate/benchgate/internal/cli"
)

// TestActionInputFlagsExist: every Action input that becomes a flag names
// a flag of the flag set its mode's command really parses, of the kind
// the input passes (a bare flag for Bool, a repeatable one for Lines), so
// a misspelt flag fails here and not in a user's workflow as "unknown
// flag".
func TestActionInputFlagsExist(t *testing.T) {
	for _, mode := range action.Modes {
		t.Run(mode, func(t *testing.T) {
			fs := cli.FlagSetOf(t, mode)
			n := 0
			for _, in := range action.Inputs() {
				if in.Flag == "" || (in.Modes != nil && !slices.Contains(in.Modes, mode)) {
					continue
				}
				n++
				name, ok := strings.CutPrefix(in.Flag, "--")
				f := fs.Lookup(name)
				if !ok || f == nil {
					t.Errorf("input %s: benchgate %s has no flag %s", in.Name, mode, in.Flag)
					continue
				}
				switch typ := f.Value.Type(); {
				case in.Kind == action.Bool && typ != "bool":
					t.Errorf("input %s is passed as the bare flag %s, but that flag takes a %s", in.Name, in.Flag, typ)
				case in.Kind == action.Lines && !strings.HasSuffix(typ, "Array") && !strings.HasSuffix(typ, "Slice"):
					t.Errorf("input %s repeats %s once per line, but that flag takes one %s", in.Name, in.Flag, typ)
				case in.Kind == action.Int && !strings.HasPrefix(typ, "int") && !strings.HasPrefix(typ, "uint"):
					t.Errorf("input %s passes a number to %s, which takes a %s", in.Name, in.Flag, typ)
				case in.Kind == action.Secret || in.Kind == action.Adapter:
					t.Errorf("input %s is never a flag (kind %d) but names %s", in.Name, in.Kind, in.Flag)
				}
			}
			if n == 0 && mode != "pr-comment" {
				t.Errorf("no input becomes a flag of %s", mode)
			}
		})
	}
}
