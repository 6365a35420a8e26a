package action

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchgate/benchgate/internal/gendoc"
	"github.com/benchgate/benchgate/internal/textfmt"
)

//go:generate go run ./metadatagen ../..

// Inputs and Outputs are the one declaration of the Action's interface:
// action.yml's inputs and outputs and the two tables of docs/action.md are
// written from them (go generate ./internal/action), and a test fails when
// either file says something else.

// Markers delimit the generated parts; everything outside them is written
// by hand.
const (
	ymlBegin  = "# Generated from internal/action (Inputs, Outputs) by `go generate ./internal/action`: edit them there.\n"
	ymlEnd    = "# End of the generated inputs and outputs.\n"
	docsBegin = "<!-- Generated from internal/action (%s) by `go generate ./internal/action`: edit them there. -->\n"
	docsEnd   = "<!-- End of the generated %s. -->\n"
)

// yamlString quotes s as a single-quoted YAML scalar, the one style with
// no escapes but a doubled quote, so a description is shown as written.
func yamlString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// ActionYMLInterface is the inputs: and outputs: sections of action.yml.
// An input is required there only when every mode needs it (mode); one a
// mode needs is checked by benchgate, which names the mode.
func ActionYMLInterface() string {
	var b strings.Builder
	b.WriteString("inputs:\n")
	for _, in := range Inputs() {
		fmt.Fprintf(&b, "  %s:\n    description: %s\n    required: %t\n", in.Name, yamlString(in.Description), in.Required && in.Modes == nil)
		if in.Default != "" {
			fmt.Fprintf(&b, "    default: %s\n", yamlString(in.Default))
		}
	}
	b.WriteString("outputs:\n")
	for _, o := range Outputs() {
		fmt.Fprintf(&b, "  %s:\n    description: %s\n    value: ${{ steps.run.outputs.%s }}\n", o.Name, yamlString(o.Description), o.Name)
	}
	return b.String()
}

// DocsInputsTable is the table of inputs in docs/action.md.
func DocsInputsTable() string {
	var b strings.Builder
	b.WriteString("| input | what it does | default |\n|---|---|---|\n")
	for _, in := range Inputs() {
		def := ""
		if in.Default != "" {
			def = textfmt.CodeCell(in.Default)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", in.Name, textfmt.Cell(in.Description), def)
	}
	return b.String()
}

// DocsOutputsTable is the table of outputs in docs/action.md.
func DocsOutputsTable() string {
	var b strings.Builder
	b.WriteString("| output | value |\n|---|---|\n")
	for _, o := range Outputs() {
		fmt.Fprintf(&b, "| `%s` | %s |\n", o.Name, textfmt.Cell(o.Description))
	}
	return b.String()
}

// GeneratedFiles returns action.yml and docs/action.md of the repository
// at root as they are with their generated parts written afresh, by path
// relative to root.
func GeneratedFiles(root string) (map[string][]byte, error) {
	out := map[string][]byte{}
	yml, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		return nil, err
	}
	y, err := gendoc.Replace(string(yml), ymlBegin, ymlEnd, ActionYMLInterface(), "action.yml")
	if err != nil {
		return nil, err
	}
	out["action.yml"] = []byte(y)
	docs, err := os.ReadFile(filepath.Join(root, "docs", "action.md"))
	if err != nil {
		return nil, err
	}
	d := string(docs)
	for _, part := range []struct{ name, body string }{{"inputs table", DocsInputsTable()}, {"outputs table", DocsOutputsTable()}} {
		if d, err = gendoc.Replace(d, fmt.Sprintf(docsBegin, part.name), fmt.Sprintf(docsEnd, part.name), part.body, "docs/action.md"); err != nil {
			return nil, err
		}
	}
	out[filepath.Join("docs", "action.md")] = []byte(d)
	return out, nil
}

// WriteGeneratedFiles rewrites the generated parts of action.yml and
// docs/action.md under root, each file atomically; a file already up to
// date is left untouched.
func WriteGeneratedFiles(root string) error {
	files, err := GeneratedFiles(root)
	if err != nil {
		return err
	}
	return gendoc.Write(root, files)
}
