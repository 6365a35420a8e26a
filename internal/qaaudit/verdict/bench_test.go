package verdict

import "testing"

func BenchmarkDecide(b *testing.B) {
	in := Input{Options: []string{"A", "B", "C", "D", "E"}, NoneOfTheAbove: "E", CorrectAnswer: "C",
		Results: map[string]Truth{"A": False, "B": False, "C": True, "D": False}}
	b.ReportAllocs()
	for b.Loop() {
		if d, err := Decide(in); err != nil || d.Verdict != Valid {
			b.Fatal(d, err)
		}
	}
}
