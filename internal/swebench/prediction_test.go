package swebench

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestPredictionFor: what the harness reads back is the patch, byte for
// byte, or the patch is refused with a reason naming the file.
func TestPredictionFor(t *testing.T) {
	tests := []struct {
		name, patch  string
		check, there string
	}{
		{name: "plain diff", patch: "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n+new\n"},
		{name: "markup stays one byte a character", patch: "diff --git a/p.html b/p.html\n+<a href=\"x?a=1&b=2\">&lt;</a>\n"},
		{name: "non-ASCII UTF-8 and line separators", patch: "diff --git a/é b/é\n+café \u2028 \u2029 \x1b[0m\r\n"},
		{name: "Latin-1 in the second file", patch: "diff --git a/ok b/ok\n+fine\ndiff --git a/src/legacy.c b/src/legacy.c\n+caf\xe9\n",
			check: PatchNotUTF8, there: "its line 4 (in the diff of src/legacy.c)"},
		{name: "Latin-1 in a quoted name", patch: "diff --git \"a/caf\\351\" \"b/caf\\351\"\n+x\xff\n", check: PatchNotUTF8, there: "(in the diff of caf?)"},
		{name: "bad bytes before any header", patch: "\xfe\n", check: PatchNotUTF8, there: "its line 1 (in the diff of the patch header)"},
		{name: "over the limit as JSON", patch: strings.Repeat("\x01", MaxPredBytes/6+1), check: PatchTooLarge, there: "over the 33554432-byte limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pred, mp, check, detail := predictionFor("acme__w-1", []byte(tc.patch))
			if check != tc.check || !strings.Contains(detail, tc.there) {
				t.Fatalf("check %q detail %q; want %q with %q", check, detail, tc.check, tc.there)
			}
			if check != "" {
				return
			}
			if string(mp) != tc.patch {
				t.Errorf("model_patch %q is not the patch", mp)
			}
			if strings.Contains(string(pred), `\u003c`) || strings.Contains(string(pred), `\u0026`) {
				t.Errorf("HTML escaped: %s", pred)
			}
			if len(pred) == 0 || pred[len(pred)-1] != '\n' || strings.Count(string(pred), "\n") != 1 {
				t.Errorf("not one JSON line: %q", pred)
			}
		})
	}
}

// FuzzPredictionFor: any patch is either carried unchanged (UTF-8 and
// under the limit) or refused with a reason; nothing else.
func FuzzPredictionFor(f *testing.F) {
	for _, s := range []string{"diff --git a/f b/f\n+x\n", "diff --git \"a/\\351\" \"b/\\351\"\n+\xe9\n", "<&>\u2028", "\xff", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, patch []byte) {
		pred, mp, check, detail := predictionFor("acme__w-1", patch)
		switch {
		case check == "":
			if string(mp) != string(patch) {
				t.Fatalf("model_patch %q, patch %q", mp, patch)
			}
			back, err := DecodePred(pred, "acme__w-1")
			if err != nil || back.ModelPatch != string(patch) {
				t.Fatalf("read back %q %v", back.ModelPatch, err)
			}
		case check == PatchNotUTF8:
			if utf8.Valid(patch) || !strings.Contains(detail, "in the diff of") || !utf8.ValidString(detail) {
				t.Fatalf("not_utf8 for %q: %s", patch, detail)
			}
		default:
			t.Fatalf("check %q (%s) for %q", check, detail, patch)
		}
	})
}
