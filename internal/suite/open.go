package suite

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/benchgate/benchgate/internal/fsutil"
)

// MaxFileBytes bounds one suite file: ten times the largest pair of
// suites benchgate is sized for (1,000,000 rows of about 1 KB). A file
// past it is not a suite but a runaway writer or a sparse file; reading
// it would take minutes for nothing.
const MaxFileBytes = 16 << 30

// Source is an open suite file: reads stop with an error once
// MaxFileBytes were read, or once its context is done, so that neither a
// huge file nor a stop signal leaves a reader running.
type Source struct {
	f    *os.File
	ctx  context.Context
	read int64
	max  int64
}

// Open opens the suite file at path for reading, only if it is a regular
// file (fsutil.OpenRegular): a FIFO, a device or a directory is refused
// with one error naming path and what it is. followLinks false also
// refuses a symbolic link, for files a benchmark writes. A missing file
// gives an error wrapping fs.ErrNotExist.
func Open(ctx context.Context, path string, followLinks bool) (*Source, error) {
	f, err := fsutil.OpenRegular(path, followLinks)
	if err != nil {
		return nil, err
	}
	return &Source{f: f, ctx: ctx, max: MaxFileBytes}, nil
}

// Read reads from the file, checking the context and the size limit
// first.
func (s *Source) Read(p []byte) (int, error) {
	if err := s.ctx.Err(); err != nil {
		return 0, fmt.Errorf("reading stopped: %w", context.Cause(s.ctx))
	}
	if s.read >= s.max {
		return 0, fmt.Errorf("expected a suite file of at most %d bytes; stopped reading there", s.max)
	}
	if int64(len(p)) > s.max-s.read {
		p = p[:s.max-s.read]
	}
	n, err := s.f.Read(p)
	s.read += int64(n)
	return n, err
}

// Close closes the file.
func (s *Source) Close() error { return s.f.Close() }

var _ io.ReadCloser = (*Source)(nil)
