package verify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/benchgate/benchgate/internal/bench"

	"github.com/benchgate/benchgate/internal/suite"
)

// Row is what the set keeps of one suite JSONL row: suite's judgement of
// the line, plus the checks of the set's row-count contract. Raw keeps the
// line as the benchmark wrote it, so merged files carry every field the
// report reads.
type Row struct {
	File       string
	Line       int
	Mode       string
	ScenarioID string
	Iteration  int
	Raw        []byte
	// Problems lists what is wrong with this row; empty means it passes.
	Problems []Problem
	// Check results, for tracking.json's pass/fail counts.
	SuccessOK, OutputValidOK, ErrorNullOK bool
}

// Problem is one located row diagnostic, as tracking.json's failures
// carry it: suite's one diagnostic type.
type Problem = suite.Diagnostic

// ReadRows reads a suite JSONL file of one mode. A missing file reads as
// no rows (the benchmark wrote nothing). Lines that are not valid rows
// become rows with problems, so that they count against the set instead
// of being skipped silently.
func ReadRows(path, mode string) ([]Row, error) {
	rows, _, err := readEvidence(context.Background(), path, mode)
	return rows, err
}

// Evidence identifies the bytes an attempt's rows were judged from: a
// reader of tracking.json can check that the file still holds them.
type Evidence struct {
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// readEvidence reads an attempt's suite file as ReadRows does, and says
// which bytes it judged. The file is the benchmark's: it is opened only
// if it is a regular file and not a link (a FIFO or a link to /dev/zero
// is an error naming it, not a read that never ends), read up to
// suite.MaxFileBytes, and the read stops with ctx.
func readEvidence(ctx context.Context, path, mode string) ([]Row, Evidence, error) {
	src, err := suite.Open(ctx, path, false)
	if errors.Is(err, os.ErrNotExist) {
		return nil, Evidence{SHA256: hex.EncodeToString(sha256.New().Sum(nil))}, nil
	}
	if err != nil {
		return nil, Evidence{}, fmt.Errorf("%s suite file %w", mode, err)
	}
	defer src.Close()
	h := sha256.New()
	cr := &countingReader{r: io.TeeReader(src, h)}
	rows, err := parseRows(cr, path, mode)
	return rows, Evidence{Bytes: cr.n, SHA256: hex.EncodeToString(h.Sum(nil))}, err
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// parseRows judges every line with suite's lenient reader, so that set
// fails exactly the rows report refuses and the Action annotates (no
// tokens, "latency_ms_wall":"fast", a line over suite.MaxLineBytes, a
// number out of range, a broken rule), and adds the set's own checks.
func parseRows(r io.Reader, path, mode string) ([]Row, error) {
	var rows []Row
	err := suite.ReadChecked(r, path, func(c suite.Checked) error {
		rows = append(rows, setRow(c, mode))
		return nil
	})
	// suite's errors name the file already.
	return rows, err
}

// setRow turns suite's judgement of one line into the set's row. Every
// problem carries the mode of the file the row was read from. The
// row-count contract adds, for valid rows, what suite's rules leave alone:
// a row must name its scenario and iteration (the set counts and reruns by
// them) and belong to the file's mode.
func setRow(c suite.Checked, mode string) Row {
	// The row's scenario is compared by the rule the set file and
	// --scenario-id follow; an ID that rule refuses is kept as written,
	// and no set holds it.
	id := c.ScenarioID
	if n, err := bench.NormalizeScenarioID(id); err == nil {
		id = n
	}
	row := Row{File: c.File, Line: c.Line, Mode: mode, ScenarioID: id, Iteration: c.Iteration,
		SuccessOK: c.SuccessOK, OutputValidOK: c.OutputValidOK, ErrorNullOK: c.ErrorNullOK}
	if c.Raw != nil {
		row.Raw = append([]byte(nil), c.Raw...)
	}
	for _, d := range c.Diagnostics {
		d.Mode = mode
		row.Problems = append(row.Problems, d)
	}
	if c.Row == nil {
		return row // not a valid row: suite's diagnostic says why
	}
	add := func(field, want, got string) {
		row.Problems = append(row.Problems, Problem{Mode: mode, File: c.File, Line: c.Line, ScenarioID: c.ScenarioID,
			Iteration: c.Iteration, Field: field, Expected: want, Got: got})
	}
	if c.ScenarioID == "" {
		add("scenario_id", "a non-empty string", strconv.Quote(c.ScenarioID))
	}
	if c.Iteration < 1 {
		add("iteration", "an integer >= 1", strconv.Itoa(c.Iteration))
	}
	if c.Mode != mode {
		add("mode", strconv.Quote(mode), strconv.Quote(c.Mode))
	}
	return row
}
