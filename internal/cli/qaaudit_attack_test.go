package cli

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/qaaudit/qreport"
	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

// TestQAAuditSandboxHoldsNoTokens runs the binary with a token in its
// environment on a question whose option tests are the attacker's: read
// /proc/<parent>/environ (the parent is benchgate, which holds the
// token) and connect to a server on this machine. Both must fail, so the
// option saying "neither" is proven true and the others false, and the
// token appears in no file the audit wrote.
func TestQAAuditSandboxHoldsNoTokens(t *testing.T) {
	py := testenv.Python(t)
	dir := t.TempDir()
	bin := testenv.Benchgate(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	probe := fmt.Sprintf(`import os
import socket


def attempts():
    try:
        data = open("/proc/%%d/environ" %% os.getppid(), "rb").read()
        with open("leak.txt", "wb") as f:
            f.write(data)
        read = True
    except OSError:
        read = False
    s = socket.socket()
    s.settimeout(3)
    try:
        s.connect(("127.0.0.1", %d))
        reached = True
    except OSError:
        reached = False
    return read, reached
`, port)
	tests := map[string]string{
		"Neither":                          probe + "\n\ndef test_option():\n    assert attempts() == (False, False)\n",
		"It can read the parent's environ": probe + "\n\ndef test_option():\n    assert attempts()[0]\n",
		"It can reach a local server":      probe + "\n\ndef test_option():\n    assert attempts()[1]\n",
	}
	chat := newChatFake(t, tests, nil)
	yaml := `benchmarks:
- id: attack:sandbox
  question: What can a test in the sandbox do?
  options:
    A: Neither
    B: It can read the parent's environ
    C: It can reach a local server
  correct_answer: A
  benchmark_type: multiple_choice
`
	if err := os.WriteFile(filepath.Join(dir, "attack.benchmark.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	const token = "ghs_benchgateSandboxToken0123456789"
	env := append(noModelEnv(), "GITHUB_TOKEN="+token, "OPENAI_API_KEY=sk-"+token)
	code, log, _ := runBinary(t, dir, env, bin, "qa-audit", "--model-backend", "openai", "--model", "m", "--model-url", chat.URL+"/v1",
		"--python", py, "--out-dir", "out", "attack.benchmark.yaml")
	if code != ExitOK {
		t.Fatalf("exit %d, want 0 (A proven, B and C disproven):\n%s", code, log)
	}
	rep, err := qreport.Read(filepath.Join(dir, "out", "quality_report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Cases[0]; c.Verdict != "Valid" {
		t.Fatalf("verdict %s (%s), options %+v", c.Verdict, c.Reason, c.Options)
	}
	filepath.WalkDir(filepath.Join(dir, "out"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if filepath.Base(p) == "leak.txt" {
			t.Errorf("a test read its parent's environment: %s", p)
		}
		if b, _ := os.ReadFile(p); strings.Contains(string(b), token) {
			t.Errorf("%s holds the token", p)
		}
		return nil
	})
}
