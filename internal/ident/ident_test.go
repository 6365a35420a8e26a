package ident

import "testing"

func TestPatterns(t *testing.T) {
	tests := []struct {
		name string
		p    Pattern
		ok   []string
		bad  []string
	}{
		{"set", SetName, []string{"pr-exec", "ci-verify-pr", "a", "x.y_z"},
			[]string{"", "PR", "-x", "../x", "a/b", "a b", string(make([]byte, 65))}},
		{"scenario", ScenarioID, []string{"pr-view-001", "issue-triage-comment-wf-001"},
			[]string{"pr-view-1", "PR-view-001", "pr--view-001", "../pr-view-001", "pr-view-001 "}},
		{"instance", InstanceID, []string{"apache__druid-13704", "mrdoob__three.js-25687"},
			[]string{"druid-13704", "a__b", "-a__b-1", "a/b__c-1", "a__b-1\n"}},
		{"case", CaseID, []string{"q1", "adk:api:001", "a.b-c_d"},
			[]string{"", "-q", "a/b", "a b", "é"}},
		{"fqn", FQN, []string{"json.dumps", "google.adk.agents.LlmAgent", "_private.x1"},
			[]string{`json"; import os; "`, "json.dumps()", "1abc", "a..b", "", "a.b\nimport os"}},
		{"python name", PythonName, []string{"x", "_a1"}, []string{"1a", "a.b", ""}},
	}
	for _, tc := range tests {
		for _, s := range tc.ok {
			if !tc.p.Match(s) {
				t.Errorf("%s: %q refused", tc.name, s)
			}
		}
		for _, s := range tc.bad {
			if tc.p.Match(s) {
				t.Errorf("%s: %q accepted", tc.name, s)
			}
		}
	}
	long := "a"
	for i := 0; i < 30; i++ {
		long += ".b"
	}
	if !FQN.Match(long) || FQN.Match(long+".c") {
		t.Errorf("FQN: 31 parts must match and 32 must not")
	}
}

func TestPathSegment(t *testing.T) {
	for in, want := range map[string]string{
		"q1":          "q1",
		"../../etc":   "etc",
		"..":          "case",
		"":            "case",
		"a b/c":       "a_b_c",
		".hidden":     "hidden",
		"adk:api:001": "adk_api_001",
	} {
		if got := PathSegment(in); got != want {
			t.Errorf("PathSegment(%q) = %q, want %q", in, got, want)
		}
	}
}
