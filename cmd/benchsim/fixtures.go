package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

var seedIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

type manifest struct {
	Version   int            `json:"version"`
	Repo      manifestRepo   `json:"repo"`
	Resources map[string]any `json:"resources"`
}

type manifestRepo struct {
	Owner         string `json:"owner"`
	Name          string `json:"name"`
	FullName      string `json:"full_name"`
	DefaultBranch string `json:"default_branch"`
}

// fixturesFailure returns the failure a fixtures_fail rule injects into
// action, if any.
func fixturesFailure(root string, getenv func(string) string, action string) error {
	fails, err := loadFailures(root, getenv)
	if err != nil {
		return err
	}
	for _, r := range fails.Rules {
		if r.Behavior == "fixtures_fail" && r.Action == action {
			return fmt.Errorf("fixtures %s: simulated failure", action)
		}
	}
	return nil
}

// runFixtures runs one fixtures action; fail says whether a failure is
// injected into it.
func runFixtures(args []string, stdout io.Writer, fail func(action string) error) error {
	action := "status"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		action, args = args[0], args[1:]
	}
	out, seedID := "fixtures/latest.json", "default"
	for i := 0; i < len(args); i++ {
		if i+1 >= len(args) {
			return fmt.Errorf("fixtures: %s: expected a value", args[i])
		}
		switch args[i] {
		case "--out":
			out = args[i+1]
		case "--seed-id":
			seedID = args[i+1]
		case "--repo":
		default:
			return fmt.Errorf("fixtures: unknown flag %q", args[i])
		}
		i++
	}
	if fail != nil {
		if err := fail(action); err != nil {
			return err
		}
	}
	switch action {
	case "status":
		m, err := loadManifest(out)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Fixture manifest OK: repo=%s version=%d path=%s\n", m.Repo.FullName, m.Version, out)
	case "seed":
		if !seedIDPattern.MatchString(seedID) {
			return fmt.Errorf("fixtures seed: --seed-id %q: expected ^[A-Za-z0-9][A-Za-z0-9._-]*$, at most 64", seedID)
		}
		m := manifest{Version: 1,
			Repo: manifestRepo{Owner: "benchsim", Name: "fixtures", FullName: "benchsim/fixtures", DefaultBranch: "main"},
			Resources: map[string]any{
				"issue":    map[string]any{"id": "I_sim", "number": 1},
				"pr":       map[string]any{"id": "PR_sim", "number": 1},
				"metadata": map[string]any{"seed_id": seedID, "generated_at": time.Now().UTC().Format(time.RFC3339)},
			}}
		data, _ := json.MarshalIndent(m, "", "  ")
		if err := writeAtomic(out, append(data, '\n')); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Seeded fixtures %s into %s\n", seedID, out)
	case "cleanup":
		if _, err := loadManifest(out); err != nil {
			return err
		}
		if err := os.Remove(out); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Closed 0 seeded issue(s) in benchsim/fixtures\nRemoved fixture manifest: %s\n", out)
	default:
		return fmt.Errorf("fixtures: unknown action %q (expected status, seed or cleanup)", action)
	}
	return nil
}

func loadManifest(path string) (*manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("Fixture manifest not found: %s", path)
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil || m.Version != 1 || m.Repo.FullName == "" {
		return nil, fmt.Errorf("invalid fixture manifest %s", path)
	}
	return &m, nil
}

func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
