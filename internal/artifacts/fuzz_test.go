package artifacts

import (
	"encoding/base64"
	"strings"
	"testing"
)

// FuzzBackendIDs feeds arbitrary runtime tokens to the JWT scope parser: it
// must never panic, and whatever it accepts must be a pair of non-empty IDs
// taken from an Actions.Results scope.
func FuzzBackendIDs(f *testing.F) {
	f.Add(fakeToken("Actions.Results:1:2"))
	f.Add(fakeToken("Actions.GenericRead:00000000-0000-0000-0000-000000000000 Actions.Results:ce7f54c7-61c7-4aae-887f-30da475f5f1a:ca395085-040a-526b-2ce8-bdc85f692774 Actions.UploadArtifacts:00000000-0000-0000-0000-000000000000/1:Build/Build/6"))
	f.Add(fakeToken("Actions.Results:1:2:3"))
	f.Add("a.b.c")
	f.Add("..")
	f.Add("x." + base64.RawURLEncoding.EncodeToString([]byte(`{"scp":7}`)) + ".y")
	f.Fuzz(func(t *testing.T, token string) {
		run, job, err := backendIDs(token)
		if err != nil {
			if run != "" || job != "" {
				t.Fatalf("error %v with ids %q/%q", err, run, job)
			}
			return
		}
		if run == "" || job == "" || strings.ContainsAny(run+job, ": \t\n") {
			t.Fatalf("accepted ids %q/%q", run, job)
		}
	})
}

// FuzzValidateName checks that every accepted name is free of the
// characters upload-artifact rejects and every rejection says why.
func FuzzValidateName(f *testing.F) {
	for _, s := range []string{"set-core-run-1", "a/b", "a\\b", "", " ", "x\r\ny", "résumé ✓"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		err := ValidateName(name)
		if err == nil {
			if strings.ContainsAny(name, "\":<>|*?\r\n\\/") || strings.TrimSpace(name) == "" {
				t.Fatalf("accepted %q", name)
			}
			return
		}
		if !strings.Contains(err.Error(), "artifact name") {
			t.Fatalf("unclear error %q", err)
		}
	})
}
