package swebench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/benchgate/benchgate/internal/fsutil"
)

// MaxPatchBytes bounds the patch an agent may leave; a larger file is
// refused rather than read into memory and into predictions.jsonl.
const MaxPatchBytes = 16 << 20

// MaxPredBytes bounds one prediction as written: the .pred file, and so
// its row of predictions.jsonl. The writer refuses a success whose
// prediction would be larger (a named failure, never an empty row), and
// batch and merge read no more of a .pred than this: the three agree on
// what a prediction is. JSON escapes each newline, tab, quote and
// backslash of a patch as two bytes, so a patch of MaxPatchBytes fits
// unless it is mostly control characters.
const MaxPredBytes = 32 << 20

// EncodePred is a prediction as the harness reads it (Python's
// json.loads): compact JSON and a newline. HTML characters are not
// escaped: "<", ">" and "&" stay one byte each, so a patch of markup
// does not grow sixfold. Go escapes U+2028 and U+2029 whatever it is
// told; json.loads reads the escapes back as the same characters.
func EncodePred(p Pred) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Reasons a patch cannot be a prediction, in status.json's patch_check.
const (
	// PatchNotUTF8: the harness reads model_patch as a JSON string, which
	// holds Unicode text only; bytes of another encoding (a Latin-1 file)
	// would reach it as U+FFFD and apply nowhere.
	PatchNotUTF8 = "not_utf8"
	// PatchTooLarge: the prediction would be over MaxPredBytes.
	PatchTooLarge = "too_large"
)

// predictionFor builds the .pred of a success from the patch the agent
// wrote and reads it back as the harness will: the bytes returned as
// modelPatch are the ones the success check must apply, and pred the
// file's bytes. A patch that cannot be carried unchanged is refused with
// its patch_check reason and a detail naming the file and line.
func predictionFor(id string, patch []byte) (pred, modelPatch []byte, reason, detail string) {
	if file, line, ok := firstInvalidUTF8(patch); !ok {
		return nil, nil, PatchNotUTF8, fmt.Sprintf("the patch is not UTF-8 text: its line %d (in the diff of %s) holds bytes of another encoding; "+
			"model_patch is a JSON string, so the harness would get U+FFFD for them and the patch would apply nowhere "+
			"(the file is not UTF-8; a change of such a file cannot be a prediction)", line, file)
	}
	b, err := EncodePred(Pred{ModelNameOrPath: ModelName, InstanceID: id, ModelPatch: string(patch)})
	if err != nil {
		return nil, nil, PatchNotChecked, "encode the prediction: " + err.Error()
	}
	if len(b) > MaxPredBytes {
		return nil, nil, PatchTooLarge, fmt.Sprintf("the prediction of this %d-byte patch is %d bytes as JSON, over the %d-byte limit of a prediction", len(patch), len(b), MaxPredBytes)
	}
	back, err := DecodePred(b, id)
	if err != nil || back.ModelPatch != string(patch) {
		return nil, nil, PatchNotChecked, fmt.Sprintf("the prediction does not read back as the patch written (%v)", err)
	}
	return b, []byte(back.ModelPatch), "", ""
}

// firstInvalidUTF8 finds the first line of patch that is not UTF-8 and
// the file whose diff holds it (the b/ side of the last "diff --git"
// header before it, or "the patch header" before any).
func firstInvalidUTF8(patch []byte) (file string, line int, ok bool) {
	if utf8.Valid(patch) {
		return "", 0, true
	}
	file = "the patch header"
	for n, l := range bytes.Split(patch, []byte("\n")) {
		if rest, found := bytes.CutPrefix(l, []byte("diff --git ")); found {
			file = diffTarget(string(rest))
		}
		if !utf8.Valid(l) {
			return file, n + 1, false
		}
	}
	return file, 0, false
}

// diffTarget is the file a "diff --git a/X b/Y" header names (Y), with
// git's C-style quoting undone where it is used.
func diffTarget(rest string) string {
	if strings.HasSuffix(rest, `"`) {
		if i := strings.LastIndex(rest[:len(rest)-1], ` "`); i >= 0 {
			if s, err := strconv.Unquote(rest[i+1:]); err == nil {
				return strings.TrimPrefix(strings.ToValidUTF8(s, "?"), "b/")
			}
		}
	}
	if i := strings.LastIndex(rest, " b/"); i >= 0 {
		return strings.ToValidUTF8(rest[i+3:], "?")
	}
	return strings.ToValidUTF8(rest, "?")
}

// DecodePred reads the bytes of a .pred written for id.
func DecodePred(b []byte, id string) (Pred, error) {
	var got Pred
	if err := json.Unmarshal(b, &got); err != nil {
		return got, err
	}
	if got.InstanceID != id {
		return got, fmt.Errorf("instance_id %q, expected %q", got.InstanceID, id)
	}
	return got, nil
}

// ReadPred reads an <id>.pred as the row of predictions.jsonl: at most
// MaxPredBytes, never through a link. A missing or unreadable file gives
// the empty-patch row (the harness needs one row per instance) and the
// error that says why.
func ReadPred(path, id string) (Pred, error) {
	p := Pred{ModelNameOrPath: ModelName, InstanceID: id}
	b, err := fsutil.ReadFileIn(filepath.Dir(path), path, MaxPredBytes)
	if err != nil {
		return p, err
	}
	got, err := DecodePred(b, id)
	if err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	p.ModelPatch = got.ModelPatch
	return p, nil
}

// errNoPrediction marks a success whose .pred could not be read.
var errNoPrediction = errors.New("the prediction of a success could not be read")
