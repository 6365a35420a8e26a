package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// CheckManifestIfPresent is CheckManifest for a file that may not be
// there yet: a missing file is left to the preflight ("fixtures status"
// may need to say why), a present one must be a valid manifest.
func CheckManifestIfPresent(path string) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := CheckManifest(path); err != nil {
		return fmt.Errorf("%w (seed it again with the benchmark's fixtures seed, or give another --fixture-manifest)", err)
	}
	return nil
}

// CheckManifest verifies what the preflight requires of a fixture
// manifest after "fixtures status": the file exists and is a JSON object
// with version 1 and a repo.
func CheckManifest(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("fixture manifest: %w", err)
	}
	var m struct {
		Version *int `json:"version"`
		Repo    *struct {
			FullName string `json:"full_name"`
		} `json:"repo"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("fixture manifest %s: expected a JSON object: %s", path, lineOf(data, err))
	}
	if m.Version == nil || *m.Version != 1 {
		return fmt.Errorf("fixture manifest %s: field version: expected 1", path)
	}
	if m.Repo == nil || m.Repo.FullName == "" {
		return fmt.Errorf("fixture manifest %s: field repo.full_name: expected a non-empty string", path)
	}
	return nil
}
