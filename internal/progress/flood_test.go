package progress

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// sparseFlood makes a file of size bytes without a newline (a sparse
// file: zeros), then a newline and rows, as a runaway benchmark would.
func sparseFlood(t testing.TB, size int64, rows [][]byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ghx-suite.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(size, 0); err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("\n"))
	for _, r := range rows {
		f.Write(append(r, '\n'))
	}
	f.Close()
	return path
}

// TestFollowerBoundsAFlood: 600 MiB without a newline is one failing row,
// the rows after it count, and the follower never holds more than its
// tail of the flood.
func TestFollowerBoundsAFlood(t *testing.T) {
	rows := realRows(t, 3)
	path := sparseFlood(t, 600<<20, rows)
	f := newFollower(Options{Files: []File{{Mode: "ghx", Path: path}}})
	file := f.files[0]
	for polls := 0; file.offset < 600<<20; polls++ {
		if polls > 100 {
			t.Fatal("the follower stopped advancing")
		}
		f.poll()
		if cap(file.partial) > maxTail+chunkBytes {
			t.Fatalf("holds %d bytes of an unfinished line, want at most %d", cap(file.partial), maxTail+chunkBytes)
		}
	}
	f.poll()
	if file.rows != 4 || file.failing != 1 {
		t.Errorf("rows %d failing %d, want 4 rows (the flood and 3 real ones), 1 failing", file.rows, file.failing)
	}
}

// BenchmarkFollowFlood follows a sparse file of 600 MiB without a
// newline to its end and reports the largest live heap seen between
// polls (max-heap-MiB).
func BenchmarkFollowFlood(b *testing.B) {
	path := sparseFlood(b, 600<<20, nil)
	var peak uint64
	var ms runtime.MemStats
	b.ResetTimer()
	for range b.N {
		f := newFollower(Options{Files: []File{{Mode: "ghx", Path: path}}})
		for f.files[0].offset <= 600<<20 {
			f.poll()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "max-heap-MiB")
}
