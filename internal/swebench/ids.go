// Package swebench produces SWE-bench predictions: one instance at a time
// in its instance container with the Ralph loop driving `codex exec -p
// local`, a sequential batch over many instances, shard merging and the
// optional image preparation. Every outcome leaves <id>.status.json,
// <id>.pred and <id>.patch, and run_manifest.json is updated under a lock.
package swebench

import (
	"bufio"
	"bytes"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/benchgate/benchgate/internal/exitcode"
	"github.com/benchgate/benchgate/internal/ident"
)

//go:embed defaultids/multilingual_test.txt
var defaultIDs []byte

// Default scope of a batch: SWE-bench Multilingual, test split.
const (
	DefaultDataset = "SWE-bench/SWE-bench_Multilingual"
	DefaultSplit   = "test"
)

// ValidateID rejects anything that is not an `owner__repo-NUMBER` instance
// ID. IDs become folder, file and container names, so path separators,
// "..", spaces and leading dashes are refused.
func ValidateID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("instance ID is empty (expected owner__repo-NUMBER, e.g. apache__druid-13704)")
	case len(id) > 200:
		return fmt.Errorf("instance ID %.40q... is %d characters long (at most 200)", id, len(id))
	case strings.Contains(id, ".."):
		return fmt.Errorf("instance ID %q contains \"..\" (expected owner__repo-NUMBER)", id)
	case !ident.InstanceID.Match(id):
		return fmt.Errorf("instance ID %q is not of the form %s", id, ident.InstanceID.Expected)
	}
	return nil
}

// DefaultIDs returns the 300 SWE-bench Multilingual test IDs shipped in
// the binary, sorted.
func DefaultIDs() []string {
	var ids []string
	sc := bufio.NewScanner(bytes.NewReader(defaultIDs))
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			ids = append(ids, s)
		}
	}
	sort.Strings(ids)
	return ids
}

// SortUnique sorts ids lexicographically (byte order) without duplicates.
func SortUnique(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// ImageName fills the image template: {id} becomes the lower-cased ID,
// as SWE-bench names its instance images.
func ImageName(template, id string) string {
	return strings.ReplaceAll(template, "{id}", strings.ToLower(id))
}

// DefaultImageTemplate is the local ARM64 instance image name.
const DefaultImageTemplate = "sweb.eval.arm64.{id}:latest"

// ContainerName is the per-instance runtime container name.
//
// The name carries a token unique to the invocation: two runs of the same
// instance ID on one engine (two shards, a rerun beside a batch) each get
// their own container and never remove each other's.
func ContainerName(id, invocation string) string {
	return "benchgate-swebench-" + strings.ToLower(id) + "-" + invocation
}

// newInvocation returns a short random token naming one invocation's
// containers.
func newInvocation() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Shard is a 1-based slice i of n of a sorted ID list.
type Shard struct{ I, N int }

// ParseShard reads "i/n" with 1 <= i <= n.
func ParseShard(s string) (Shard, error) {
	var sh Shard
	var rest string
	if n, _ := fmt.Sscanf(s, "%d/%d%s", &sh.I, &sh.N, &rest); n != 2 || sh.N < 1 || sh.I < 1 || sh.I > sh.N {
		return Shard{}, exitcode.Optionf("shard", " %q: expected i/n with 1 <= i <= n, e.g. 2/4", s)
	}
	return sh, nil
}

// Select returns the IDs of shard sh: every n-th ID starting at the i-th,
// so each shard gets a similar mix of repositories.
func (sh Shard) Select(ids []string) []string {
	if sh.N <= 1 {
		return ids
	}
	var out []string
	for k, id := range ids {
		if k%sh.N == sh.I-1 {
			out = append(out, id)
		}
	}
	return out
}

func (sh Shard) String() string {
	if sh.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", sh.I, sh.N)
}
