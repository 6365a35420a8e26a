package testenv

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRatesAbove100(t *testing.T) {
	for _, c := range []struct {
		text string
		bad  int
	}{
		{"agent_direct success rate 97.0% → 102.0%, median active tokens 1000 → 1050", 1},
		{"ghx success rate 95.0% → 100.0%, median active tokens 500 → 525", 0},
		{"| successRate | 100.00% | 102.5% |", 1},
		{"| successRate | 100.00% |", 0},
		{"tokens +130.0% against the baseline; success rate 90%", 0},
		{"timeout rate 3%, retry rate 101%", 1},
		{"runner failure rate: 0.00%", 0},
	} {
		if got := RatesAbove100(c.text); len(got) != c.bad {
			t.Errorf("RatesAbove100(%q) = %q, want %d", c.text, got, c.bad)
		}
	}
	for _, c := range []struct {
		doc string
		bad int
	}{
		{`{"modes":{"ghx":{"successRate":102,"medianTokens":5000}}}`, 1},
		{`{"trend":[{"successRatePct":100},{"successRatePct":97.5}]}`, 0},
		{`{"flipRate":0.5,"passK":0.9}` + "\n", 0},
		{"{\"success_rate\": 55}\n{\"success_rate\": 140}\n", 1},
	} {
		if got := JSONRatesAbove100([]byte(c.doc)); len(got) != c.bad {
			t.Errorf("JSONRatesAbove100(%s) = %q, want %d", c.doc, got, c.bad)
		}
	}
}

// TestFixturesShowNoRateAbove100 reads every fixture and golden file of
// the repository (the testdata folders, the docs and the examples) and
// fails on a rate above 100%: the figures drawn in docs/images come from
// them.
func TestFixturesShowNoRateAbove100(t *testing.T) {
	root := RepoRoot(t)
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." && d.Name() != ".github" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		in := strings.Contains("/"+filepath.ToSlash(rel), "/testdata/") || strings.HasPrefix(rel, "docs"+string(filepath.Separator)) ||
			strings.HasPrefix(rel, "examples"+string(filepath.Separator)) || strings.HasPrefix(rel, ".github"+string(filepath.Separator))
		ext := filepath.Ext(p)
		if !in || !strings.Contains(".md .json .jsonl .log .txt .yml .yaml", ext) || ext == "" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		var bad []string
		if ext == ".json" || ext == ".jsonl" {
			bad = JSONRatesAbove100(b)
		} else {
			bad = RatesAbove100(string(b))
		}
		for _, x := range bad {
			t.Errorf("%s: a rate above 100%%: %s", rel, x)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Errorf("read only %d fixture files; the walk misses the testdata folders", files)
	}
}
