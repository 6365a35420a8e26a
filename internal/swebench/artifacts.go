package swebench

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/benchgate/benchgate/internal/failcode"
	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/ralph"
)

// ModelName is the model_name_or_path of every prediction.
const ModelName = "qwen3-coder-next-FP8,codex,ralph"

// How the patch file the agent wrote compares with the prediction
// computed from its final tree, in status.json's agent_patch.
const (
	AgentPatchSame    = "same"
	AgentPatchDiffers = "differs"
	// AgentPatchNone: the agent wrote no patch file, or an empty one.
	AgentPatchNone = "none"
	// AgentPatchRefused: the file is a link or over MaxPatchBytes; it is
	// not kept.
	AgentPatchRefused = "refused"
)

// Status is <id>.status.json. The first five fields are the contract;
// the rest explain the run.
type Status struct {
	InstanceID          string         `json:"instance_id"`
	Status              string         `json:"status"`
	FailureReasonCode   *failcode.Code `json:"failure_reason_code"`
	FailureReasonDetail string         `json:"failure_reason_detail"`
	ErrorLog            string         `json:"error_log"`
	Interrupted         bool           `json:"interrupted,omitempty"`
	// PatchCheck is how the patch of a finished loop fared against the
	// code's original commit (Patch*); empty when the loop did not end in
	// a success. A failure it decides is the agent's or the image's, never
	// the endpoint's: the endpoint circuit breaker leaves it out.
	PatchCheck string `json:"patch_check,omitempty"`
	// AgentPatch says how the agent's own patch file (<id>.patch, kept as
	// it wrote it) compares with the prediction computed from its final
	// tree (AgentPatch*); set when the loop ended in a success.
	AgentPatch string `json:"agent_patch,omitempty"`
	// IgnoredNewFiles names (up to 100, sorted) the files the agent
	// created that .gitignore keeps out of the prediction;
	// IgnoredNewFileCount counts them all.
	IgnoredNewFiles     []string `json:"ignored_new_files,omitempty"`
	IgnoredNewFileCount int      `json:"ignored_new_file_count,omitempty"`
	// NestedRepositories are the folders with their own .git whose files
	// are in the prediction as ordinary files.
	NestedRepositories []string `json:"nested_repositories,omitempty"`
	Image              string   `json:"image,omitempty"`
	// CodexVersion is `codex --version` of the codex that ran, the
	// image's own or the runner's mounted one.
	CodexVersion  string         `json:"codex_version,omitempty"`
	ExecutePasses int            `json:"execute_passes"`
	MaxLoops      int            `json:"max_loops"`
	Usage         ralph.Usage    `json:"usage"`
	Phases        []ralph.Record `json:"phases"`
	StartTime     time.Time      `json:"start_time"`
	EndTime       time.Time      `json:"end_time"`
}

// Terminal reports whether a resumed batch may skip the instance.
func (s Status) Terminal() bool {
	switch s.Status {
	case ralph.StatusSuccess, ralph.StatusFailed, ralph.StatusIncomplete:
		return !s.Interrupted
	}
	return false
}

// Pred is <id>.pred and one row of predictions.jsonl.
type Pred struct {
	ModelNameOrPath string `json:"model_name_or_path"`
	InstanceID      string `json:"instance_id"`
	ModelPatch      string `json:"model_patch"`
}

// Paths of one instance's artifacts.
type Paths struct {
	Dir, Plans, Logs, Patch, Pred, Status string
}

// PathsFor lays out the instance output folder.
func PathsFor(dir, id string) Paths {
	return Paths{
		Dir:    dir,
		Plans:  filepath.Join(dir, "plans"),
		Logs:   filepath.Join(dir, "logs"),
		Patch:  filepath.Join(dir, id+".patch"),
		Pred:   filepath.Join(dir, id+".pred"),
		Status: filepath.Join(dir, id+".status.json"),
	}
}

// ReadStatus reads an <id>.status.json.
func ReadStatus(path string) (Status, error) {
	var s Status
	// The status file lies in the agent's output folder: never follow a
	// link there, and cap what is read.
	b, err := fsutil.ReadFileIn(filepath.Dir(path), path, 1<<20)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// writeArtifacts writes patch, pred and status below root, each
// atomically and never through a link the agent planted. pred is the
// .pred's bytes (EncodePred): the success check ran on exactly them.
func writeArtifacts(root string, p Paths, st Status, patch, pred []byte) error {
	if err := fsutil.WriteFileAtomicIn(root, p.Patch, patch, 0o644); err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomicIn(root, p.Pred, pred, 0o644); err != nil {
		return err
	}
	return fsutil.WriteJSONAtomicIn(root, p.Status, st)
}

// WritePredictions writes predictions.jsonl with one row per ID, in
// order, each encoded as EncodePred encodes a .pred.
func WritePredictions(path string, rows []Pred) error {
	var buf []byte
	for _, r := range rows {
		b, err := EncodePred(r)
		if err != nil {
			return err
		}
		buf = append(buf, b...)
	}
	return fsutil.WriteFileAtomic(path, buf, 0o644)
}
