package artifacts

import (
	"errors"
	"fmt"
	"strings"
)

// invalidNameChars are the characters actions/upload-artifact rejects in an
// artifact name, with the description it prints for each. Rejecting them
// before any request is made gives the user the same answer GitHub would,
// without spending a CreateArtifact call.
var invalidNameChars = []struct {
	char string
	desc string
}{
	{`"`, `double quote "`},
	{":", "colon :"},
	{"<", "less than <"},
	{">", "greater than >"},
	{"|", "vertical bar |"},
	{"*", "asterisk *"},
	{"?", "question mark ?"},
	{"\r", `carriage return \r`},
	{"\n", `line feed \n`},
	{`\`, `backslash \`},
	{"/", "forward slash /"},
}

// ValidateName reports whether name can be used as an artifact name: it must
// not be empty and must not contain any of the characters upload-artifact
// rejects (" : < > | * ? \r \n \ /).
func ValidateName(name string) error {
	if strings.TrimSpace(name) == "" {
		return errors.New("artifact name is empty")
	}
	for _, c := range invalidNameChars {
		if strings.Contains(name, c.char) {
			return fmt.Errorf("artifact name %q contains %s; names must not contain any of: \" : < > | * ? \\r \\n \\ /", name, c.desc)
		}
	}
	return nil
}
