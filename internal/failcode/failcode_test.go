package failcode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestTableHasEveryCodeOnce: each code of the contract is one row, in the
// contract's order, with the properties the batch, merge and the Action
// rely on (checked by hand against docs/swebench.md's account of each).
func TestTableHasEveryCodeOnce(t *testing.T) {
	want := []Info{
		{Code: "missing_image", Retryable: true},
		{Code: "codex_bootstrap_failed", Retryable: true},
		{Code: "blocked"},
		{Code: "incomplete"},
		{Code: "runtime_error", Retryable: true, Endpoint: true},
		{Code: "no_change"},
	}
	if len(Table) != len(want) {
		t.Fatalf("%d rows, want %d", len(Table), len(want))
	}
	for i, w := range want {
		got := Table[i]
		if got.Code != w.Code || got.Retryable != w.Retryable || got.Endpoint != w.Endpoint {
			t.Errorf("row %d = %s retryable=%t endpoint=%t, want %s retryable=%t endpoint=%t", i, got.Code, got.Retryable, got.Endpoint, w.Code, w.Retryable, w.Endpoint)
		}
		if got.Meaning == "" {
			t.Errorf("%s: no meaning", got.Code)
		}
		if in, ok := Lookup(w.Code); !ok || in.Code != w.Code {
			t.Errorf("Lookup(%s) = %v, %t", w.Code, in.Code, ok)
		}
	}
	if _, ok := Lookup("success"); ok {
		t.Error(`Lookup("success") found a row`)
	}
	names := Names()
	if !slices.IsSorted(names) || len(names) != len(Table) {
		t.Errorf("Names() = %v, want every code, sorted", names)
	}
}

func TestParseList(t *testing.T) {
	tests := []struct {
		in      string
		want    []Code
		wantErr string
	}{
		{in: "runtime_error", want: []Code{RuntimeError}},
		{in: "missing_image, runtime_error", want: []Code{MissingImage, RuntimeError}},
		{in: "runtime_error,some", wantErr: `"some" is not a failure code (expected one of blocked, codex_bootstrap_failed, incomplete, missing_image, no_change, runtime_error)`},
		{in: "runtime_error,", wantErr: `"" is not a failure code`},
		{in: "Runtime_Error", wantErr: `"Runtime_Error" is not a failure code`},
	}
	for _, tt := range tests {
		got, err := ParseList(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Errorf("ParseList(%q) = %v, %v; want an error starting %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseList(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// TestCodeJSON: a code is written as its name, and no code (a success) as
// null, exactly as the status and manifest files' contract says.
func TestCodeJSON(t *testing.T) {
	type status struct {
		Code *Code `json:"failure_reason_code"`
	}
	for _, tc := range []struct {
		st   status
		want string
	}{
		{status{}, `{"failure_reason_code":null}`},
		{status{new(NoChange)}, `{"failure_reason_code":"no_change"}`},
	} {
		b, err := json.Marshal(tc.st)
		if err != nil || string(b) != tc.want {
			t.Errorf("Marshal = %s, %v; want %s", b, err, tc.want)
		}
		var back status
		if err := json.Unmarshal(b, &back); err != nil || (back.Code == nil) != (tc.st.Code == nil) || (back.Code != nil && *back.Code != *tc.st.Code) {
			t.Errorf("Unmarshal(%s) = %v, %v", b, back.Code, err)
		}
	}
}

// TestDocsTableIsGenerated: the failure codes table of docs/swebench.md
// says exactly what Table declares (codes, meanings, retryable, circuit
// breaker, order).
func TestDocsTableIsGenerated(t *testing.T) {
	root := testenv.RepoRoot(t)
	files, err := GeneratedFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range files {
		got, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from failcode.Table: run go generate ./internal/failcode (and edit the table in internal/failcode, not in %s)", rel, rel)
		}
	}
	// Every meaning is in the docs: the table is where Meaning is read.
	for _, in := range Table {
		if row := "| `" + string(in.Code) + "` | " + in.Meaning + " |"; !strings.Contains(string(files[DocsFile]), row) {
			t.Errorf("%s has no row starting %q", DocsFile, row)
		}
	}
}

func TestRetryable(t *testing.T) {
	if got, want := Retryable(), []Code{MissingImage, BootstrapFailed, RuntimeError}; !slices.Equal(got, want) {
		t.Errorf("Retryable() = %v, want %v", got, want)
	}
}
