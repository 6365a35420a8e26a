package failcode

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchgate/benchgate/internal/gendoc"
)

//go:generate go run ./docsgen ../..

// The failure codes table of docs/swebench.md is written from Table (go
// generate ./internal/failcode), and a test fails when the file says
// something else. The markers delimit it; the rest of the file is written
// by hand.
const (
	DocsFile  = "docs/swebench.md"
	docsBegin = "<!-- Generated from internal/failcode (Table) by `go generate ./internal/failcode`: edit it there. -->\n"
	docsEnd   = "<!-- End of the generated failure codes table. -->\n"
)

// Retryable lists the codes a retry can end otherwise once the runner's
// side is fixed, in the table's order.
func Retryable() []Code {
	var out []Code
	for _, in := range Table {
		if in.Retryable {
			out = append(out, in.Code)
		}
	}
	return out
}

// DocsTable is the Markdown table of the codes in docs/swebench.md: each
// code's meaning, whether it is retryable and whether it counts toward
// the endpoint circuit breaker (with the batch's exceptions, which hold
// for every code).
func DocsTable() string {
	var b strings.Builder
	b.WriteString("| code | meaning | retryable once the runner's side is fixed | counts toward the endpoint circuit breaker |\n|---|---|---|---|\n")
	for _, in := range Table {
		retry, endpoint := "no", "no"
		if in.Retryable {
			retry = "yes"
		}
		if in.Endpoint {
			endpoint = "yes, unless the patch check decided it (`patch_check` set) or the run was interrupted"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", in.Code, in.Meaning, retry, endpoint)
	}
	return b.String()
}

// GeneratedFiles returns docs/swebench.md of the repository at root with
// its table written afresh, by path relative to root.
func GeneratedFiles(root string) (map[string][]byte, error) {
	docs, err := os.ReadFile(filepath.Join(root, DocsFile))
	if err != nil {
		return nil, err
	}
	d, err := gendoc.Replace(string(docs), docsBegin, docsEnd, DocsTable(), DocsFile)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{DocsFile: []byte(d)}, nil
}

// WriteGeneratedFiles rewrites the table of docs/swebench.md under root,
// atomically; a file already up to date is left untouched.
func WriteGeneratedFiles(root string) error {
	files, err := GeneratedFiles(root)
	if err != nil {
		return err
	}
	return gendoc.Write(root, files)
}
