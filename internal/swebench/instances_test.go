package swebench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/testsupport/testenv"
)

func TestValidateID(t *testing.T) {
	tests := []struct {
		id string
		ok bool
	}{
		{"apache__druid-13704", true},
		{"mrdoob__three.js-25687", true},
		{"tokio-rs__axum-1119", true},
		{"Owner__Repo_x-1", true},
		{"", false},
		{"apache__druid", false},
		{"apache-druid-1", false},
		{"../apache__druid-1", false},
		{"apache__dr..uid-1", false},
		{"apache/x__druid-1", false},
		{"apache__druid-1/..", false},
		{"-apache__druid-1", false},
		{"apache__druid-1 ", false},
		{"apache__druid-1\n", false},
		{strings.Repeat("a", 200) + "__b-1", false},
	}
	for _, tc := range tests {
		if err := ValidateID(tc.id); (err == nil) != tc.ok {
			t.Errorf("ValidateID(%q) = %v, want ok=%v", tc.id, err, tc.ok)
		}
	}
}

func TestLoadInstances(t *testing.T) {
	tests := []struct {
		name, file, content string
		want                []string
		wantStatement       string
		wantErr             string
	}{
		{name: "txt with comments", file: "ids.txt", content: "# subset\nb__c-2\n\n a__b-1  # first\n", want: []string{"b__c-2", "a__b-1"}},
		{name: "json list of IDs", file: "ids.json", content: `["a__b-1","b__c-2"]`, want: []string{"a__b-1", "b__c-2"}},
		{name: "json instances object", file: "ids.json", content: `{"instances":[{"instance_id":"a__b-1","problem_statement":"Fix it"}]}`, want: []string{"a__b-1"}, wantStatement: "Fix it"},
		{name: "jsonl records", file: "ds.jsonl", content: "{\"instance_id\":\"a__b-1\",\"problem_statement\":\"P\"}\n\n{\"instance_id\":\"b__c-2\"}\n", want: []string{"a__b-1", "b__c-2"}, wantStatement: "P"},
		{name: "txt bad ID names the line", file: "ids.txt", content: "a__b-1\nrm -rf /\n", wantErr: "ids.txt:2: instance ID \"rm -rf /\""},
		{name: "jsonl record without ID", file: "ds.jsonl", content: "{\"instance_id\":\"a__b-1\"}\n{\"repo\":\"x\"}\n", wantErr: "ds.jsonl:2: field \"instance_id\" is missing"},
		{name: "jsonl bad JSON", file: "ds.jsonl", content: "{\"instance_id\":", wantErr: "ds.jsonl:1:"},
		{name: "json object without instances", file: "ids.json", content: `{"ids":[]}`, wantErr: "\"instances\" list"},
		{name: "json item with bad ID", file: "ids.json", content: `["a__b-1","../x__y-1"]`, wantErr: "item 1"},
		{name: "not JSON", file: "ids.json", content: `nope`, wantErr: "not valid JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := LoadInstances(p)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, in := range got {
				ids = append(ids, in.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tc.want, ",") {
				t.Errorf("ids %v, want %v", ids, tc.want)
			}
			if got[0].ProblemStatement != tc.wantStatement {
				t.Errorf("problem statement %q, want %q", got[0].ProblemStatement, tc.wantStatement)
			}
		})
	}
	if _, err := LoadInstances(filepath.Join(t.TempDir(), "absent.txt")); err == nil || !strings.Contains(err.Error(), "absent.txt") {
		t.Errorf("missing file: %v", err)
	}
}

func TestFindInstance(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ds.jsonl")
	if err := os.WriteFile(p, []byte("{\"instance_id\":\"a__b-1\",\"problem_statement\":\"P1\",\"repo\":\"a/b\"}\n{\"instance_id\":\"a__b-2\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := FindInstance(p, "a__b-1")
	if err != nil || in.ProblemStatement != "P1" || !strings.Contains(SpecMarkdown(in), "## Problem Statement\n\nP1") {
		t.Fatalf("%+v %v", in, err)
	}
	if _, err := FindInstance(p, "a__b-2"); err == nil || !strings.Contains(err.Error(), "no \"problem_statement\"") {
		t.Errorf("empty statement: %v", err)
	}
	if _, err := FindInstance(p, "a__b-3"); err == nil || !strings.Contains(err.Error(), "no record with instance_id a__b-3") {
		t.Errorf("absent: %v", err)
	}
}

// TestDefaultIDs checks the embedded scope against the copy under
// testdata/swebench (whose provenance is documented there).
func TestDefaultIDs(t *testing.T) {
	ids := DefaultIDs()
	if len(ids) != 300 {
		t.Fatalf("%d default IDs, want 300", len(ids))
	}
	for _, id := range ids {
		if err := ValidateID(id); err != nil {
			t.Error(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "swebench", "swebench_multilingual_test_instance_ids.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(defaultIDs) {
		t.Error("internal/swebench/defaultids and testdata/swebench differ")
	}
	if got := SortUnique(ids); len(got) != 300 || got[0] != "apache__druid-13704" {
		t.Errorf("sorted scope starts with %v", got[:1])
	}
}

func TestShard(t *testing.T) {
	ids := []string{"a__a-1", "a__a-2", "a__a-3", "a__a-4", "a__a-5"}
	tests := []struct {
		in, want, err string
	}{
		{in: "1/2", want: "a__a-1,a__a-3,a__a-5"},
		{in: "2/2", want: "a__a-2,a__a-4"},
		{in: "1/1", want: strings.Join(ids, ",")},
		{in: "3/2", err: "1 <= i <= n"},
		{in: "0/2", err: "1 <= i <= n"},
		{in: "1/2x", err: "expected i/n"},
		{in: "two", err: "expected i/n"},
	}
	for _, tc := range tests {
		sh, err := ParseShard(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseShard(%q) = %v, want error %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(sh.Select(ids), ","); got != tc.want {
			t.Errorf("shard %s = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func FuzzLoadInstances(f *testing.F) {
	for _, s := range []string{"a__b-1\n# c\n", `["a__b-1"]`, `{"instances":[{"instance_id":"a__b-1"}]}`, "{\"instance_id\":\"a__b-1\"}\n"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
		f.Add(s, uint8(2))
	}
	exts := []string{".txt", ".json", ".jsonl"}
	f.Fuzz(func(t *testing.T, content string, ext uint8) {
		p := filepath.Join(t.TempDir(), "f"+exts[int(ext)%3])
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := LoadInstances(p)
		if err != nil {
			return
		}
		for _, in := range got {
			if ValidateID(in.ID) != nil || strings.ContainsAny(in.ID, "/\\ \n") {
				t.Fatalf("accepted an invalid ID %q", in.ID)
			}
		}
	})
}

// TestCheckDataset: every instance in scope needs exactly one record with
// a string problem statement; each refusal names the file and the line.
func TestCheckDataset(t *testing.T) {
	tests := []struct {
		name, file, content string
		ids                 []string
		from                map[string]string
		wantErr             string
	}{
		{name: "every instance has its record", file: "ds.jsonl", content: "{\"instance_id\":\"a__b-1\",\"problem_statement\":\"P1\"}\n{\"instance_id\":\"a__b-2\",\"problem_statement\":\"P2\"}\n", ids: []string{"a__b-2", "a__b-1"}},
		{name: "records out of scope may lack a statement", file: "ds.jsonl", content: "{\"instance_id\":\"a__b-1\",\"problem_statement\":\"P1\"}\n{\"instance_id\":\"x__y-9\"}\n", ids: []string{"a__b-1"}},
		{name: "an instance without a record", file: "ds.jsonl", content: "{\"instance_id\":\"a__b-1\",\"problem_statement\":\"P1\"}\n", ids: []string{"a__b-1", "a__b-7"},
			from: map[string]string{"a__b-7": "ids.txt:2"}, wantErr: "ds.jsonl: no record with instance_id a__b-7 (ids.txt:2)"},
		{name: "several without a record", file: "ds.jsonl", content: "{\"instance_id\":\"a__b-1\",\"problem_statement\":\"P1\"}\n", ids: []string{"a__b-1", "a__b-7", "a__b-8"},
			wantErr: "ds.jsonl: no record with instance_id for 2 instances in scope: a__b-7, a__b-8"},
		{name: "a duplicate record", file: "ds.jsonl", content: "{\"instance_id\":\"a__b-1\",\"problem_statement\":\"P1\"}\n{\"instance_id\":\"a__b-2\",\"problem_statement\":\"P\"}\n{\"instance_id\":\"a__b-1\",\"problem_statement\":\"P1 again\"}\n", ids: []string{"a__b-2", "a__b-1"},
			wantErr: "ds.jsonl:3: a second record of instance a__b-1 (the first is at"},
		{name: "a duplicate record out of scope", file: "ds.jsonl", content: "{\"instance_id\":\"a__b-1\",\"problem_statement\":\"P1\"}\n{\"instance_id\":\"a__b-2\",\"problem_statement\":\"P\"}\n{\"instance_id\":\"a__b-1\",\"problem_statement\":\"P1 again\"}\n", ids: []string{"a__b-2"}},
		{name: "a number as statement", file: "ds.jsonl", content: "{\"instance_id\":\"a__b-1\",\"problem_statement\":\"P1\"}\n{\"instance_id\":\"a__b-2\",\"problem_statement\":42}\n", ids: []string{"a__b-1", "a__b-2"},
			wantErr: "ds.jsonl:2: instance a__b-2: field \"problem_statement\" is a number; expected a string"},
		{name: "an object as statement", file: "ds.json", content: "[\n  {\"instance_id\":\"a__b-1\",\"problem_statement\":\"P1\"},\n  {\"instance_id\":\"a__b-2\",\n   \"problem_statement\":{\"text\":\"P2\"}}\n]\n", ids: []string{"a__b-2"},
			wantErr: "ds.json:3: instance a__b-2: field \"problem_statement\" is an object"},
		{name: "an empty statement", file: "ds.json", content: "{\"instances\": [\n{\"instance_id\":\"a__b-1\",\"problem_statement\":\"  \"}]}", ids: []string{"a__b-1"},
			wantErr: "ds.json:2: instance a__b-1 has no \"problem_statement\""},
		{name: "a null statement", file: "ds.jsonl", content: "{\"instance_id\":\"a__b-1\",\"problem_statement\":null}\n", ids: []string{"a__b-1"},
			wantErr: "ds.jsonl:1: instance a__b-1 has no \"problem_statement\""},
		{name: "a txt list is no dataset", file: "ds.txt", content: "a__b-1\n", ids: []string{"a__b-1"},
			wantErr: "ds.txt:1: instance a__b-1 has no \"problem_statement\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			err := CheckDataset(p, tc.ids, tc.from)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), p) {
				t.Fatalf("err %v, want %q naming %s", err, tc.wantErr, p)
			}
		})
	}
}
