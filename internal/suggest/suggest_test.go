package suggest

import "testing"

func TestClosest(t *testing.T) {
	commands := []string{"report", "set", "ordered", "swebench", "qa-audit", "pr-comment", "action"}
	for _, c := range []struct {
		word string
		want string
	}{
		{"repot", "report"},
		{"reprot", "report"},
		{"REPORT", "report"},
		{"odered", "ordered"},
		{"qaaudit", "qa-audit"},
		{"st", "set"},       // one edit on a short word
		{"sex", "set"},      // one edit
		{"xyz", ""},         // three edits from set
		{"swe", "swebench"}, // prefix of one command
		{"pr", ""},          // too short for a prefix
		{"deploy", ""},      // nothing near
		{"", ""},            // nothing typed
		{"reports", "report"},
	} {
		if got := Closest(c.word, commands); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	flags := []string{"gate", "gate-profile", "stats", "stats-confidence", "suite-jsonl"}
	for word, want := range map[string]string{"gat": "gate", "stats-confidance": "stats-confidence", "suite-json": "suite-jsonl", "stat": "stats", "gate-profil": "gate-profile", "confidence": ""} {
		if got := Closest(word, flags); got != want {
			t.Errorf("Closest(%q) = %q, want %q", word, got, want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	if got := DidYouMean("gat", []string{"gate"}, func(s string) string { return "--" + s }); got != "; did you mean --gate?" {
		t.Errorf("got %q", got)
	}
	if got := DidYouMean("zzz", []string{"gate"}, nil); got != "" {
		t.Errorf("got %q", got)
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"repot", "report", 1}, {"é", "e", 1}} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// FuzzClosest: whatever is typed, Closest answers one of the candidates
// or nothing, and a candidate typed exactly is answered with itself.
func FuzzClosest(f *testing.F) {
	for _, s := range []string{"repot", "", "é", "gate-profil", "\xff\xfe", "REPORT", "swe"} {
		f.Add(s)
	}
	candidates := []string{"report", "set", "ordered", "swebench", "qa-audit", "pr-comment", "action", "gate", "gate-profile"}
	f.Fuzz(func(t *testing.T, word string) {
		got := Closest(word, candidates)
		if got == "" {
			return
		}
		found := false
		for _, c := range candidates {
			found = found || c == got
		}
		if !found {
			t.Fatalf("Closest(%q) = %q, not a candidate", word, got)
		}
		for _, c := range candidates {
			if word == c && got != c {
				t.Fatalf("Closest(%q) = %q", word, got)
			}
		}
	})
}
