// Package progress follows the suite files a benchmark is writing and
// says where a long run is: rows so far of rows expected, failing rows so
// far, time elapsed and the time left at the rows' pace. A benchmark may
// take an hour per set and print nothing benchgate shows; these lines are
// the only sign of life in a terminal or a step log until the set ends.
//
// It only reads. The set judges the files once the benchmark has exited;
// a follower never decides anything and its counts may lag by one poll.
package progress

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/benchgate/benchgate/internal/fsutil"
	"github.com/benchgate/benchgate/internal/suite"
)

// Defaults for Options.
const (
	// DefaultPoll is how often the files are looked at: new rows show
	// within this delay.
	DefaultPoll = 500 * time.Millisecond
	// DefaultHeartbeat is the longest silence: a benchmark that writes no
	// row for this long still gets a line, so a log that stops growing
	// means benchgate is stuck, not the benchmark slow.
	DefaultHeartbeat = 30 * time.Second
)

// File is one suite file a benchmark mode appends rows to.
type File struct {
	Mode string
	Path string
	// Expected is how many rows this mode should write; 0 when unknown.
	Expected int
}

// Options configures a Follower.
type Options struct {
	// Label names what runs, for example "set pr-exec (set 3 of 9) rerun 1 of 2".
	Label string
	Files []File
	// Out receives one line per update. It must take whole lines from
	// several goroutines (the set serialises its log).
	Out       io.Writer
	Poll      time.Duration
	Heartbeat time.Duration
	Now       func() time.Time
}

// Follower follows Options.Files until Stop.
type Follower struct {
	opts  Options
	start time.Time
	files []*followed
	last  time.Time // when the last line was printed

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// followed is the read state of one file.
type followed struct {
	File
	offset  int64
	partial []byte // bytes after the last newline read, a row still being written
	// skipping is set inside a line longer than maxTail, whose bytes are
	// not kept.
	skipping bool
	buf      []byte
	rows     int
	failing  int
	shown    int // rows at the last line printed for this file
	shownF   int
}

// Start begins following in a goroutine of its own. The files need not
// exist yet: the benchmark creates them when it writes its first row.
func Start(opts Options) *Follower {
	f := newFollower(opts)
	go f.loop()
	return f
}

func newFollower(opts Options) *Follower {
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = DefaultHeartbeat
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	f := &Follower{opts: opts, start: opts.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	f.last = f.start
	for _, file := range opts.Files {
		f.files = append(f.files, &followed{File: file})
	}
	return f
}

func (f *Follower) loop() {
	defer close(f.done)
	t := time.NewTicker(f.opts.Poll)
	defer t.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-t.C:
			f.poll()
		}
	}
}

// Stop reads the files one last time, prints the lines of those that
// changed since the last line, and stops following. It is safe to call
// more than once.
func (f *Follower) Stop() {
	f.once.Do(func() {
		close(f.stop)
		<-f.done
		f.poll()
	})
}

// poll reads what was appended and prints a line for every file with new
// rows; when nothing was printed for a heartbeat, a line for every file.
func (f *Follower) poll() {
	now := f.opts.Now()
	changed := false
	for _, file := range f.files {
		file.read()
		if file.rows != file.shown || file.failing != file.shownF {
			changed = true
		}
	}
	heartbeat := now.Sub(f.last) >= f.opts.Heartbeat
	if !changed && !heartbeat {
		return
	}
	for _, file := range f.files {
		if heartbeat || file.rows != file.shown || file.failing != file.shownF {
			fmt.Fprintln(f.opts.Out, f.line(file, now))
			file.shown, file.shownF = file.rows, file.failing
		}
	}
	f.last = now
}

// line is one progress line, for example
// "progress: set pr-exec (set 3 of 9) attempt-0, ghx: 4/10 rows, 1 failing, elapsed 12s, ETA 18s".
func (f *Follower) line(file *followed, now time.Time) string {
	elapsed := now.Sub(f.start)
	var b strings.Builder
	fmt.Fprintf(&b, "progress: %s, %s: %d", f.opts.Label, file.Mode, file.rows)
	if file.Expected > 0 {
		fmt.Fprintf(&b, "/%d", file.Expected)
	}
	fmt.Fprintf(&b, " rows, %d failing, elapsed %s, ETA %s", file.failing, round(elapsed), eta(elapsed, file.rows, file.Expected))
	return b.String()
}

// eta is the time left at the pace of the rows so far.
func eta(elapsed time.Duration, rows, expected int) string {
	switch {
	case expected <= 0 || rows == 0:
		return "unknown"
	case rows >= expected:
		return "0s"
	}
	left := time.Duration(float64(elapsed) / float64(rows) * float64(expected-rows))
	if left < time.Second {
		return "<1s"
	}
	return round(left)
}

func round(d time.Duration) string {
	if d < time.Second {
		return "0s"
	}
	return d.Round(time.Second).String()
}

// Bounds of one poll of one file. The follower holds a chunk buffer and
// at most maxTail bytes of a row still being written, whatever the file
// holds: a benchmark that writes 512 MiB without a newline, or a sparse
// file of 600 MiB, costs it no more than these.
const (
	chunkBytes = 256 << 10
	// maxTail is the longest row the follower judges; a line past it (a
	// thousand times a real row) is counted as a failing row without
	// being held. The set reads every line itself once the benchmark
	// has exited and decides.
	maxTail = 1 << 20
	// maxPollBytes bounds what one poll reads, so that a huge append
	// cannot delay the next line or Stop; the rest is read next poll.
	maxPollBytes = 64 << 20
)

// read counts the complete lines appended since the last read. A file
// that shrank was started again (the set removes a file before each
// attempt): it is counted from its start. Only a regular file is read,
// never through a link: a FIFO or a device at the path is skipped.
func (file *followed) read() {
	fh, err := fsutil.OpenRegular(file.Path, false)
	if err != nil {
		return // not written yet, or not a file a benchmark writes rows to
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return
	}
	if info.Size() < file.offset {
		file.offset, file.partial, file.skipping, file.rows, file.failing = 0, nil, false, 0, 0
	}
	if info.Size() == file.offset {
		return
	}
	if _, err := fh.Seek(file.offset, io.SeekStart); err != nil {
		return
	}
	if file.buf == nil {
		file.buf = make([]byte, chunkBytes)
	}
	left := min(info.Size()-file.offset, maxPollBytes)
	for left > 0 {
		n, err := fh.Read(file.buf[:min(int64(len(file.buf)), left)])
		if n > 0 {
			file.offset += int64(n)
			left -= int64(n)
			file.consume(file.buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// consume takes the next bytes of the file: it counts the rows they
// complete and keeps the start of a row still being written, up to
// maxTail.
func (file *followed) consume(data []byte) {
	for len(data) > 0 {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			if !file.skipping {
				file.partial = append(file.partial, data...)
				if len(file.partial) > maxTail {
					file.partial, file.skipping = nil, true
				}
			}
			return
		}
		switch {
		case file.skipping:
			// The end of a line too long to hold.
			file.rows++
			file.failing++
			file.skipping = false
		case len(file.partial) > 0:
			file.judge(append(file.partial, data[:nl+1]...))
			file.partial = file.partial[:0]
		default:
			// Every complete line up to the last newline, in place.
			last := bytes.LastIndexByte(data, '\n')
			file.judge(data[:last+1])
			nl = last
		}
		data = data[nl+1:]
	}
}

// judge counts the rows of complete lines and those that fail.
func (file *followed) judge(complete []byte) {
	_ = suite.ReadChecked(bytes.NewReader(complete), file.Path, func(c suite.Checked) error {
		file.rows++
		if !c.Passed() {
			file.failing++
		}
		return nil
	})
}
