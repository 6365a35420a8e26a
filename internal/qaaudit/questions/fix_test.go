package questions

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// humanFix derives the maintainers' correction of one case from the
// before/after pair of files.
func humanFix(before, after *Case) Fix {
	var fx Fix
	if before.Question != after.Question {
		q := after.Question
		fx.Question = &q
	}
	if before.CorrectAnswer != after.CorrectAnswer {
		a := after.CorrectAnswer
		fx.CorrectAnswer = &a
	}
	if before.Explanation != after.Explanation {
		e := after.Explanation
		fx.Explanation = &e
	}
	for _, o := range after.Options {
		if b, ok := before.Option(o.Key); !ok || b.Text != o.Text {
			if fx.Options == nil {
				fx.Options = map[string]string{}
			}
			fx.Options[o.Key] = o.Text
		}
	}
	return fx
}

func loadPair(t *testing.T, suite string) (*File, *File) {
	t.Helper()
	before, err := Load(adk(t, suite+".benchmark.before-fixes-d7e1048.yaml"), Options{SkipSnippets: true})
	if err != nil {
		t.Fatal(err)
	}
	after, err := Load(adk(t, suite+".benchmark.yaml"), Options{SkipSnippets: true})
	if err != nil {
		t.Fatal(err)
	}
	return before, after
}

// TestHumanFixesReproduceMaintainersFile applies every human fix of the
// diagnose suite to the file from before the fixes and expects the
// maintainers' current file byte for byte.
func TestHumanFixesReproduceMaintainersFile(t *testing.T) {
	before, after := loadPair(t, "diagnose_setup_errors_mc")
	fixed := 0
	for _, a := range after.Cases() {
		b, ok := before.Case(a.ID)
		if !ok {
			t.Fatalf("case %s missing before the fixes", a.ID)
		}
		fx := humanFix(b, a)
		if fx.Empty() {
			continue
		}
		if err := before.ApplyFix(a.ID, fx); err != nil {
			t.Fatalf("ApplyFix(%s): %v", a.ID, err)
		}
		fixed++
	}
	if fixed != 8 {
		t.Errorf("fixed %d cases, want the 8 the maintainers changed", fixed)
	}
	got, _ := before.Bytes()
	want, _ := after.Bytes()
	if string(got) != string(want) {
		t.Errorf("fixed file differs from the maintainers' file:\n%s", firstDiff(string(got), string(want)))
	}
}

// TestHumanEditsReproduceConfigureFile replays the configure suite's
// human edits: four fixed cases and one removed case.
func TestHumanEditsReproduceConfigureFile(t *testing.T) {
	before, after := loadPair(t, "configure_adk_features_mc")
	fixed, removed := 0, 0
	for _, b := range append([]*Case(nil), before.Cases()...) {
		a, ok := after.Case(b.ID)
		if !ok {
			if err := before.RemoveCase(b.ID); err != nil {
				t.Fatal(err)
			}
			removed++
			continue
		}
		if fx := humanFix(b, a); !fx.Empty() {
			if err := before.ApplyFix(b.ID, fx); err != nil {
				t.Fatalf("ApplyFix(%s): %v", b.ID, err)
			}
			fixed++
		}
	}
	if fixed != 4 || removed != 1 {
		t.Errorf("fixed %d, removed %d; want 4 and 1", fixed, removed)
	}
	if got, want := string(mustBytes(before)), string(mustBytes(after)); got != want {
		t.Errorf("edited file differs from the maintainers' file:\n%s", firstDiff(got, want))
	}
}

func TestRemoveCase(t *testing.T) {
	src := "benchmarks:\n- id: s:a\n  question: A?\n  options: {A: x}\n  correct_answer: A\n# about b\n- id: s:b\n  question: B?\n  options: {A: x}\n  correct_answer: A\n- id: s:c\n  question: C?\n  options: {A: x}\n  correct_answer: A\n"
	tests := []struct {
		id, want, err string
	}{
		{"s:a", "benchmarks:\n# about b\n- id: s:b\n  question: B?\n  options: {A: x}\n  correct_answer: A\n- id: s:c\n  question: C?\n  options: {A: x}\n  correct_answer: A\n", ""},
		{"s:c", "benchmarks:\n- id: s:a\n  question: A?\n  options: {A: x}\n  correct_answer: A\n# about b\n- id: s:b\n  question: B?\n  options: {A: x}\n  correct_answer: A\n", ""},
		{"s:zz", "", "no case"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			f, err := Parse("s.yaml", []byte(src), Options{})
			if err != nil {
				t.Fatal(err)
			}
			err = f.RemoveCase(tt.id)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || string(mustBytes(f)) != src {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := string(mustBytes(f)); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestFixesKeepWindowsLineEndings replays the diagnose fixes on a CRLF
// copy of the file and expects the CRLF copy of the maintainers' file.
func TestFixesKeepWindowsLineEndings(t *testing.T) {
	crlf := func(name string) *File {
		data, err := os.ReadFile(adk(t, name))
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(name, []byte(strings.ReplaceAll(string(data), "\n", "\r\n")), Options{SkipSnippets: true})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	before := crlf("diagnose_setup_errors_mc.benchmark.before-fixes-d7e1048.yaml")
	after := crlf("diagnose_setup_errors_mc.benchmark.yaml")
	for _, a := range after.Cases() {
		b, _ := before.Case(a.ID)
		if fx := humanFix(b, a); !fx.Empty() {
			if err := before.ApplyFix(a.ID, fx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got, want := string(mustBytes(before)), string(mustBytes(after)); got != want {
		t.Errorf("CRLF file differs:\n%q", firstDiff(got, want))
	}
}

// TestOneFixChangesOnlyItsOwnLines fixes one case at a time and checks
// that the case region matches the maintainers' version while every other
// line of the file is byte-identical to the original.
func TestOneFixChangesOnlyItsOwnLines(t *testing.T) {
	tests := []struct {
		suite string
		id    string
	}{
		{"diagnose_setup_errors_mc", "diagnose_setup_errors_mc:raw_function_tool"},
		{"diagnose_setup_errors_mc", "diagnose_setup_errors_mc:parallel_max_workers_string"},
		{"configure_adk_features_mc", "configure_adk_features_mc:which_class_allows_you_to_define_a_tool_from_an_op"},
		{"configure_adk_features_mc", "configure_adk_features_mc:you_want_to_automatically_save_any_file_blobs_imag"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			before, after := loadPair(t, tt.suite)
			b, ok := before.Case(tt.id)
			if !ok {
				var ids []string
				for _, c := range before.Cases() {
					if strings.Contains(c.ID, "openapi") {
						ids = append(ids, c.ID)
					}
				}
				t.Fatalf("no case %s (similar: %v)", tt.id, ids)
			}
			a, _ := after.Case(tt.id)
			orig, _ := before.Bytes()
			start, end := caseRegion(before, b)
			aStart, aEnd := caseRegion(after, a)
			if err := before.ApplyFix(tt.id, humanFix(b, a)); err != nil {
				t.Fatal(err)
			}
			got, _ := before.Bytes()
			ol, gl := splitLines(orig), splitLines(got)
			wantRegion := strings.Join(splitLines(mustBytes(after))[aStart:aEnd], "")
			if len(gl) != len(ol) {
				t.Fatalf("line count changed %d -> %d", len(ol), len(gl))
			}
			if region := strings.Join(gl[start:end], ""); region != wantRegion {
				t.Errorf("case region:\n%s\nwant:\n%s", region, wantRegion)
			}
			changed := 0
			for i := range ol {
				if ol[i] != gl[i] {
					if i < start || i >= end {
						t.Errorf("line %d outside the case changed: %q -> %q", i+1, ol[i], gl[i])
					}
					changed++
				}
			}
			if changed == 0 {
				t.Error("the fix changed nothing")
			}
		})
	}
}

func mustBytes(f *File) []byte { b, _ := f.Bytes(); return b }

// caseRegion returns the 0-based line range [start, end) of a case.
func caseRegion(f *File, c *Case) (int, int) {
	start := c.Line - 1
	end := len(splitLines(f.src))
	for i, cc := range f.cases {
		if cc == c && i+1 < len(f.cases) {
			end = f.cases[i+1].Line - 1
		}
	}
	return start, end
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + al[i] + "\nwant: " + bl[i]
		}
	}
	return "lengths differ"
}

func TestApplyFixStyles(t *testing.T) {
	src := "benchmarks:\n- id: s:a\n  question: \"Double quoted?\"\n  options:\n    A: a # keep me\n    B: |-\n      multi\n      line\n\n    # a comment that stays\n  correct_answer: A\n  explanation: plain\n- id: s:b\n  question: Q\n  options: {A: x, B: y}\n  correct_answer: A\n"
	str := func(s string) *string { return &s }
	tests := []struct {
		name string
		id   string
		fix  Fix
		want string // substring of the new file
		keep []string
		err  string
	}{
		{"double quoted stays double", "s:a", Fix{Question: str("It's new?")}, "  question: \"It's new?\"\n", nil, ""},
		{"line comment kept", "s:a", Fix{Options: map[string]string{"A": "new a"}}, "    A: new a # keep me\n", nil, ""},
		{"block scalar replaced", "s:a", Fix{Options: map[string]string{"B": "one line"}}, "    B: one line\n\n    # a comment that stays\n", nil, ""},
		{"quote when needed", "s:a", Fix{Explanation: str("`x`: is y")}, "  explanation: '`x`: is y'\n", nil, ""},
		{"reserved word quoted", "s:a", Fix{Explanation: str("true")}, "  explanation: 'true'\n", nil, ""},
		{"newline escaped", "s:a", Fix{Explanation: str("a\nb")}, "  explanation: \"a\\nb\"\n", nil, ""},
		{"new option added", "s:a", Fix{Options: map[string]string{"C": "None of the above"}}, "    C: None of the above\n\n    # a comment that stays\n  correct_answer: A\n", nil, ""},
		{"key must name an option", "s:a", Fix{CorrectAnswer: str("Z")}, "", nil, `"Z" names no option`},
		{"flow mapping refused", "s:b", Fix{Options: map[string]string{"A": "z"}}, "", nil, "cannot splice"},
		{"unknown id", "s:zz", Fix{Question: str("x")}, "", nil, `no case with id "s:zz"`},
		{"bad option key", "s:a", Fix{Options: map[string]string{"A B": "z"}}, "", nil, "expected a letter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("s.yaml", []byte(src), Options{})
			if err != nil {
				t.Fatal(err)
			}
			err = f.ApplyFix(tt.id, tt.fix)
			got, _ := f.Bytes()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				if string(got) != src {
					t.Error("a failed fix changed the file")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(got), tt.want) {
				t.Errorf("got\n%s\nwant substring %q", got, tt.want)
			}
			for _, k := range tt.keep {
				if !strings.Contains(string(got), k) {
					t.Errorf("lost %q", k)
				}
			}
			// The second case is never touched.
			if !strings.HasSuffix(string(got), "- id: s:b\n  question: Q\n  options: {A: x, B: y}\n  correct_answer: A\n") {
				t.Errorf("other case changed:\n%s", got)
			}
			// The new value reads back.
			c, _ := f.Case(tt.id)
			if tt.fix.Question != nil && c.Question != *tt.fix.Question ||
				tt.fix.Explanation != nil && c.Explanation != *tt.fix.Explanation {
				t.Errorf("value does not read back: %+v", c)
			}
			for k, v := range tt.fix.Options {
				if o, ok := c.Option(k); !ok || o.Text != v {
					t.Errorf("option %s = %+v", k, o)
				}
			}
		})
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "suite.yaml")
	src := "benchmarks:\n" + goodCase
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ans := "B"
	if err := f.ApplyFix("s:good", Fix{CorrectAnswer: &ans}); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteAtomic(path); err != nil {
		t.Fatal(err)
	}
	g, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if g.Cases()[0].CorrectAnswer != "B" {
		t.Errorf("written key = %q", g.Cases()[0].CorrectAnswer)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temp files left: %v", entries)
	}
}
