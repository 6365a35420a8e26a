package artifacts_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// benchFolder writes a 50 MiB run folder: half incompressible binary, half
// JSONL text, in 1 MiB files spread over nested folders.
func benchFolder(b *testing.B) (string, int64) {
	b.Helper()
	dir := b.TempDir()
	line := []byte(`{"set":"core","scenario_id":"issue-triage-017","mode":"ghx","status":"pass","active_tokens":18234,"latency_ms":53211}` + "\n")
	text := bytes.Repeat(line, (1<<20)/len(line)+1)[:1<<20]
	var total int64
	for i := 0; i < 50; i++ {
		data := text
		if i%2 == 0 {
			data = randomBytes(uint64(i), 1<<20)
		}
		p := filepath.Join(dir, fmt.Sprintf("set-%d", i%5), fmt.Sprintf("row-%02d", i), "out.bin")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
		total += int64(len(data))
	}
	return dir, total
}

// peakHeap samples the in-use heap until stop is called and returns the
// maximum seen, to show the archive is streamed rather than buffered.
func peakHeap() (stop func() uint64) {
	var mu sync.Mutex
	var peak uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			mu.Lock()
			peak = max(peak, ms.HeapInuse)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// BenchmarkUploadDir50MiB uploads a 50 MiB folder to act's artifact server
// on 127.0.0.1 with the default 4 MiB blocks, at the default compression
// level (6), the fastest deflate (1) and no compression (0).
func BenchmarkUploadDir50MiB(b *testing.B) {
	dir, total := benchFolder(b)
	baseURL, _ := actServer(b)
	for _, level := range []int{-1, 1, 0} {
		name := fmt.Sprintf("level=%d", level)
		if level < 0 {
			name = "level=default"
		}
		b.Run(name, func(b *testing.B) {
			c := actClient(b, baseURL)
			if level >= 0 {
				if err := c.SetCompressionLevel(level); err != nil {
					b.Fatal(err)
				}
			}
			runtime.GC()
			stop := peakHeap()
			b.SetBytes(total)
			b.ReportAllocs()
			b.ResetTimer()
			var zipBytes int64
			for i := 0; i < b.N; i++ {
				up, err := c.UploadDir(context.Background(), fmt.Sprintf("bench-%s-%d", name, i), dir)
				if err != nil {
					b.Fatal(err)
				}
				zipBytes = up.Size
			}
			b.StopTimer()
			b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(zipBytes)/(1<<20), "zip-MiB")
		})
	}
}
