package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

func TestPreflight(t *testing.T) {
	python := testenv.Python(t)
	// The same interpreter without site-packages: no pytest.
	bare := filepath.Join(t.TempDir(), "python-without-site")
	if err := os.WriteFile(bare, []byte("#!/bin/sh\nexec "+python+" -S \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A venv whose python is a link to a tool cache's python, itself a
	// link to the system's (setup-python's layout): exec follows each
	// hop inside the hidden file system, so each must be there.
	chain := t.TempDir()
	cached := filepath.Join(chain, "toolcache", "Python", "3.11", "bin", "python3")
	venvPython := filepath.Join(chain, "work", ".venv", "bin", "python")
	for _, l := range []struct{ link, target string }{{cached, python}, {venvPython, cached}} {
		if err := os.MkdirAll(filepath.Dir(l.link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(l.target, l.link); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		python  string
		require []string
		wantErr string
		missing string
	}{
		{"pytest and the stdlib", python, []string{"json", "logging.handlers"}, "", ""},
		{"a library that is not installed", python, []string{"json", "benchgate_no_such_lib.sub"}, "", "benchgate_no_such_lib.sub (ModuleNotFoundError"},
		{"an interpreter reached through two links", venvPython, []string{"json"}, "", ""},
		{"no pytest", bare, nil, "pytest is not importable (ModuleNotFoundError: No module named 'pytest'); install pytest", ""},
		{"no interpreter", filepath.Join(t.TempDir(), "python9"), nil, "cannot run it", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &Runner{Python: tc.python, WorkDir: t.TempDir()}
			it, err := r.Preflight(context.Background(), tc.require)
			if tc.wantErr != "" {
				var oe *exitcode.OptionError
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "python "+tc.python) ||
					!errors.As(err, &oe) || oe.Option != "python" || strings.Contains(err.Error(), "--") {
					t.Fatalf("err = %v, want an error of the option python naming %q and no flag", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if it.Version == "" || it.Pytest == "" {
				t.Errorf("versions not reported: %+v", it)
			}
			if got := strings.Join(it.Missing, "; "); !strings.Contains(got, tc.missing) || (tc.missing == "" && got != "") {
				t.Errorf("missing = %q, want %q", got, tc.missing)
			}
		})
	}
}
