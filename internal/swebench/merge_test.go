package swebench

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// shardRoot writes a run root as a shard batch leaves it: a manifest whose
// batch scope is order, and artifacts for the instances in done.
func shardRoot(t *testing.T, root string, order []string, done map[string]string) {
	t.Helper()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for id, status := range done {
		p := PathsFor(filepath.Join(root, id), id)
		patch := ""
		if status == "success" {
			patch = "diff --git a/x b/x\n"
		}
		for path, v := range map[string]any{
			p.Status: map[string]any{"instance_id": id, "status": status},
			p.Pred:   Pred{ModelNameOrPath: ModelName, InstanceID: id, ModelPatch: patch},
		} {
			b, _ := json.Marshal(v)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	err := UpdateManifest(root, now, func(m *Manifest) {
		for id, status := range done {
			m.Instances[id] = InstanceEntry{InstanceID: id, Status: status}
		}
		m.Batch = &BatchInfo{InstanceOrder: order}
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestMergeKeepsInstancesAnInterruptedShardNeverReached(t *testing.T) {
	dir := t.TempDir()
	r1, r2 := filepath.Join(dir, "shard1"), filepath.Join(dir, "shard2")
	// Shard 1 was interrupted after its first instance.
	shardRoot(t, r1, []string{"acme__a-1", "acme__c-3"}, map[string]string{"acme__a-1": "success"})
	shardRoot(t, r2, []string{"acme__b-2"}, map[string]string{"acme__b-2": "incomplete"})
	out := filepath.Join(dir, "merged")
	res, err := Merge(out, []string{r1, r2}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := "acme__a-1,acme__b-2,acme__c-3"
	if strings.Join(res.Order, ",") != want || res.Counts != (Counts{Total: 3, Success: 1, Failed: 1, Incomplete: 1}) {
		t.Fatalf("merged %v %+v, want %s with the unreached instance counted failed", res.Order, res.Counts, want)
	}
	preds, err := os.ReadFile(filepath.Join(out, "predictions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(preds)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[2], `"instance_id":"acme__c-3","model_patch":""`) {
		t.Fatalf("predictions.jsonl:\n%s", preds)
	}
	// Overlap is also detected through a shard's unreached scope.
	if _, err := Merge(filepath.Join(dir, "again"), []string{r1, r1}, time.Now()); err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("merge of overlapping roots: %v", err)
	}
}

func TestMergeRefusesToWriteIntoARunRoot(t *testing.T) {
	dir := t.TempDir()
	r1, r2 := filepath.Join(dir, "shard1"), filepath.Join(dir, "shard2")
	shardRoot(t, r1, []string{"acme__a-1"}, map[string]string{"acme__a-1": "success"})
	shardRoot(t, r2, []string{"acme__b-2"}, map[string]string{"acme__b-2": "success"})
	pred := PathsFor(filepath.Join(r1, "acme__a-1"), "acme__a-1").Pred
	before, err := os.ReadFile(pred)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{r1, r1 + "/", filepath.Join(dir, "shard2", "..", "shard1")} {
		_, err := Merge(out, []string{r1, r2}, time.Now())
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "one of the run roots") {
			t.Errorf("merge into %s: %v, want a usage error", out, err)
		}
	}
	if after, _ := os.ReadFile(pred); string(after) != string(before) {
		t.Errorf("%s changed: %q", pred, after)
	}
}
