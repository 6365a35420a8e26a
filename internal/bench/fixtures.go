package bench

import (
	"crypto/sha256"
	"encoding/hex"
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
	_, err := ReadManifestIdentity(path)
	return err
}

// ManifestIdentity is what a fixture manifest binds the benchmark's
// scenarios to: the repository it names and the hash of its bytes. Its
// path alone says nothing: the file at that path may be deleted, or
// replaced by one that names another repository, between two sets.
type ManifestIdentity struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Repo   string `json:"repo"`
}

// ReadManifestIdentity checks a fixture manifest as CheckManifest does
// and returns its identity. A missing file gives an error wrapping
// fs.ErrNotExist.
func ReadManifestIdentity(path string) (ManifestIdentity, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return ManifestIdentity{}, fmt.Errorf("fixture manifest: %w", err)
	}
	repo, err := parseManifest(path, data)
	if err != nil {
		return ManifestIdentity{}, err
	}
	sum := sha256.Sum256(data)
	return ManifestIdentity{Path: path, SHA256: hex.EncodeToString(sum[:]), Repo: repo}, nil
}

// Compare says how the manifest now at m.Path differs from m: "" when
// it is the same file, otherwise a sentence naming it and what changed
// (deleted, another repository, other content).
func (m ManifestIdentity) Compare(since string) string {
	now, err := ReadManifestIdentity(m.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Sprintf("fixture manifest %s was deleted %s (it named repository %s); seed it again, or give another --fixture-manifest", m.Path, since, m.Repo)
	case err != nil:
		return fmt.Sprintf("fixture manifest %s changed %s and is no longer valid: %v", m.Path, since, err)
	case now.Repo != m.Repo:
		return fmt.Sprintf("fixture manifest %s was switched to another repository %s: it names %s, not %s", m.Path, since, now.Repo, m.Repo)
	case now.SHA256 != m.SHA256:
		return fmt.Sprintf("fixture manifest %s changed %s (sha256 %s then, %s now; repository %s in both)", m.Path, since, m.SHA256, now.SHA256, m.Repo)
	}
	return ""
}

// parseManifest checks a manifest's bytes and returns its repository.
func parseManifest(path string, data []byte) (string, error) {
	var m struct {
		Version *int `json:"version"`
		Repo    *struct {
			FullName string `json:"full_name"`
		} `json:"repo"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return "", fmt.Errorf("fixture manifest %s: expected a JSON object: %s", path, lineOf(data, err))
	}
	if m.Version == nil || *m.Version != 1 {
		return "", fmt.Errorf("fixture manifest %s: field version: expected 1", path)
	}
	if m.Repo == nil || m.Repo.FullName == "" {
		return "", fmt.Errorf("fixture manifest %s: field repo.full_name: expected a non-empty string", path)
	}
	return m.Repo.FullName, nil
}
