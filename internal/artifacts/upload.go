package artifacts

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// azureVersion is the storage REST version sent with block requests; the
// SAS in the signed URL is valid for it and for every later version.
const azureVersion = "2023-11-03"

// UploadDir uploads every file under dir (recursively, keeping empty
// directories, never following symbolic links and never reading FIFOs,
// sockets or devices: they are listed in Uploaded.Skipped) as the artifact name, with paths in the
// zip relative to dir.
func (cl *Client) UploadDir(ctx context.Context, name string, dir string) (Uploaded, error) {
	return cl.UploadDirExcept(ctx, name, dir, nil)
}

// UploadDirExcept is UploadDir leaving out the paths in exclude
// (slash-separated, relative to dir; a folder leaves out everything below
// it): a run folder whose set folders are artifacts of their own, a lock
// file that says nothing to whoever downloads the results.
func (cl *Client) UploadDirExcept(ctx context.Context, name string, dir string, exclude []string) (Uploaded, error) {
	if err := ValidateName(name); err != nil {
		return Uploaded{}, err
	}
	skip := map[string]bool{}
	for _, e := range exclude {
		skip[path.Clean(strings.TrimPrefix(filepath.ToSlash(e), "./"))] = true
	}
	c, err := collectDir(dir, skip)
	if err != nil {
		return Uploaded{}, fmt.Errorf("artifact %q: %w", name, err)
	}
	return cl.upload(ctx, name, c)
}

// UploadFiles uploads the listed files as the artifact name, with paths in
// the zip relative to root. Relative file paths are resolved against root;
// every file must lie inside root.
func (cl *Client) UploadFiles(ctx context.Context, name string, root string, files []string) (Uploaded, error) {
	if err := ValidateName(name); err != nil {
		return Uploaded{}, err
	}
	c, err := collectFiles(root, files)
	if err != nil {
		return Uploaded{}, fmt.Errorf("artifact %q: %w", name, err)
	}
	return cl.upload(ctx, name, c)
}

// upload creates the artifact, streams the zip of entries to the signed URL
// block by block and finalizes it. The zip is produced by one goroutine and
// cut into blocks by another while the previous block is being sent, so at
// most three blocks are in memory whatever the folder size.
func (c *Client) upload(ctx context.Context, name string, files collection) (Uploaded, error) {
	signed, err := c.createArtifact(ctx, name)
	if err != nil {
		return Uploaded{}, fmt.Errorf("artifact %q: %w", name, err)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	var wg sync.WaitGroup

	var zipErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		zipErr = writeZip(ctx, pw, &files, c.level)
		pw.CloseWithError(zipErr)
	}()

	blockSize := c.BlockSize
	if blockSize <= 0 {
		blockSize = DefaultBlockSize
	}
	free := make(chan []byte, 2)
	free <- make([]byte, blockSize)
	free <- make([]byte, blockSize)
	full := make(chan []byte)
	hash := sha256.New()
	var size int64
	var readErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(full)
		// Closing the read side unblocks the zip writer if this loop
		// stops early because the upload was cancelled.
		defer pr.CloseWithError(io.ErrClosedPipe)
		for {
			var buf []byte
			select {
			case buf = <-free:
			case <-ctx.Done():
				return
			}
			n, err := io.ReadFull(pr, buf)
			if n > 0 {
				hash.Write(buf[:n])
				size += int64(n)
				select {
				case full <- buf[:n]:
				case <-ctx.Done():
					return
				}
			}
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return
			}
			if err != nil {
				readErr = err
				return
			}
		}
	}()

	// fail stops both goroutines and waits for them, so no goroutine
	// outlives a failed upload.
	fail := func(err error) (Uploaded, error) {
		cancel()
		pr.CloseWithError(err)
		for range full {
		}
		wg.Wait()
		return Uploaded{}, fmt.Errorf("artifact %q: %w", name, err)
	}

	var ids []string
	var offset int64
	for buf := range full {
		id := blockID(len(ids))
		if err := c.putBlock(ctx, signed, id, buf); err != nil {
			return fail(fmt.Errorf("block %d (id %s, zip bytes %d-%d): %w", len(ids), id, offset, offset+int64(len(buf))-1, err))
		}
		ids = append(ids, id)
		offset += int64(len(buf))
		free <- buf[:cap(buf)]
	}
	wg.Wait()
	// A cancelled context also breaks the pipe, so report it first.
	if err := ctx.Err(); err != nil {
		return Uploaded{}, fmt.Errorf("artifact %q: %w", name, err)
	}
	if zipErr != nil {
		return Uploaded{}, fmt.Errorf("artifact %q: %w", name, zipErr)
	}
	if readErr != nil {
		return Uploaded{}, fmt.Errorf("artifact %q: %w", name, readErr)
	}
	if err := c.putBlockList(ctx, signed, ids); err != nil {
		return Uploaded{}, fmt.Errorf("artifact %q: block list: %w", name, err)
	}
	digest := hex.EncodeToString(hash.Sum(nil))
	id, err := c.finalizeArtifact(ctx, name, size, digest)
	if err != nil {
		return Uploaded{}, fmt.Errorf("artifact %q: %w", name, err)
	}
	return Uploaded{ID: id, Name: name, Size: size, Digest: digest, Skipped: files.skipped}, nil
}

// blockID returns the ID of block i. Azure requires all IDs of a blob to
// have the same length before base64 encoding, hence the zero padding.
func blockID(i int) string {
	return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("benchgate-%08d", i)))
}

// withQuery appends query parameters to a signed URL without re-encoding
// the parameters already there: servers compare the signature byte for
// byte.
func withQuery(signed, extra string) string {
	if strings.Contains(signed, "?") {
		return signed + "&" + extra
	}
	return signed + "?" + extra
}

func (c *Client) putBlock(ctx context.Context, signed, id string, data []byte) error {
	target := withQuery(signed, "comp=block&blockid="+url.QueryEscape(id))
	return c.retry(ctx, "put block", func() error {
		return c.put(ctx, target, data, map[string]string{"Content-Type": "application/octet-stream"})
	})
}

func (c *Client) putBlockList(ctx context.Context, signed string, ids []string) error {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><BlockList>`)
	for _, id := range ids {
		b.WriteString("<Latest>" + id + "</Latest>")
	}
	b.WriteString("</BlockList>")
	body := []byte(b.String())
	target := withQuery(signed, "comp=blocklist")
	return c.retry(ctx, "put block list", func() error {
		return c.put(ctx, target, body, map[string]string{
			"Content-Type":           "application/xml",
			"x-ms-blob-content-type": "application/zip",
		})
	})
}

// put sends one PUT to the blob store. Errors never quote the signed URL's
// query, which holds the signature.
func (c *Client) put(ctx context.Context, target string, body []byte, headers map[string]string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, target, bytes.NewReader(body))
	if err != nil {
		return permanent{fmt.Errorf("signed upload URL %s: %w", redact(target), redactURLError(err))}
	}
	req.ContentLength = int64(len(body))
	req.Header.Set("x-ms-version", azureVersion)
	req.Header.Set("User-Agent", userAgent)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := c.httpClient().Do(req)
	if err != nil {
		return redactURLError(err)
	}
	defer res.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(res.Body, 512))
	if res.StatusCode/100 == 2 {
		return nil
	}
	err = fmt.Errorf("PUT %s: HTTP %d %s", redact(target), res.StatusCode, strings.TrimSpace(string(msg)))
	if retryable(res.StatusCode) {
		return err
	}
	return permanent{err}
}
