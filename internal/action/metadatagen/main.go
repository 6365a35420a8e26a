// Command metadatagen writes the generated parts of action.yml and
// docs/action.md (the inputs, the outputs and their tables) from
// internal/action's Inputs and Outputs. `go generate ./internal/action`
// runs it with the repository root as its argument.
package main

import (
	"fmt"
	"os"

	"github.com/benchgate/benchgate/internal/action"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: metadatagen <repository root>")
		os.Exit(2)
	}
	if err := action.WriteGeneratedFiles(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "metadatagen:", err)
		os.Exit(1)
	}
}
