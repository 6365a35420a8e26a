// Command docsgen writes the failure codes table of docs/swebench.md
// from internal/failcode's Table. `go generate ./internal/failcode` runs
// it with the repository root as its argument.
package main

import (
	"fmt"
	"os"

	"github.com/benchgate/benchgate/internal/failcode"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: docsgen <repository root>")
		os.Exit(2)
	}
	if err := failcode.WriteGeneratedFiles(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "docsgen:", err)
		os.Exit(1)
	}
}
