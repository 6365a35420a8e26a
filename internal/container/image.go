package container

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// ImageConfig is the part of an image's config that a commit must keep.
type ImageConfig struct {
	Entrypoint []string          `json:"Entrypoint"`
	Cmd        []string          `json:"Cmd"`
	Env        []string          `json:"Env"`
	WorkingDir string            `json:"WorkingDir"`
	User       string            `json:"User"`
	Labels     map[string]string `json:"Labels"`
}

// Image is what the runner needs to know about a local image.
type Image struct {
	ID           string      `json:"Id"`
	RepoTags     []string    `json:"RepoTags"`
	Architecture string      `json:"Architecture"`
	Config       ImageConfig `json:"Config"`
	// Size is the image's size in bytes, all its layers.
	Size int64 `json:"Size"`
	// RootFS lists the image's layers (diff IDs), bottom first.
	RootFS struct {
		Layers []string `json:"Layers"`
	} `json:"RootFS"`
}

// ImageInspect returns the local image ref; the error wraps ErrNotFound
// when there is no such image.
func (c *Client) ImageInspect(ctx context.Context, ref string) (Image, error) {
	var img Image
	err := c.doJSON(ctx, http.MethodGet, "/images/"+ref+"/json", nil, nil, &img)
	if errors.Is(err, ErrNotFound) {
		return Image{}, fmt.Errorf("image %s: %w", ref, ErrNotFound)
	}
	if err != nil {
		return Image{}, fmt.Errorf("image %s: %w", ref, err)
	}
	return img, nil
}

// ImageImport creates the image repo:tag from a root filesystem tar
// (POST /images/create?fromSrc=-), the API form of `docker import`.
// changes are Dockerfile instructions such as `CMD ["/bin/sh"]`.
func (c *Client) ImageImport(ctx context.Context, rootfs io.Reader, ref string, changes ...string) error {
	repo, tag := splitRef(ref)
	q := url.Values{"fromSrc": {"-"}, "repo": {repo}, "tag": {tag}}
	for _, ch := range changes {
		q.Add("changes", ch)
	}
	resp, err := c.do(ctx, http.MethodPost, "/images/create", q, rootfs, "application/x-tar")
	if err != nil {
		return fmt.Errorf("import image %s: %w", ref, err)
	}
	defer resp.Body.Close()
	return streamError(resp.Body, "import image "+ref)
}

// ImageLoad loads the images of an archive in `docker save` form
// (POST /images/load), the API form of `docker load`. Unlike an import,
// the archive carries the image's whole config, its platform included:
// Engine 20.10 records every import as the engine's own platform.
func (c *Client) ImageLoad(ctx context.Context, archive io.Reader) error {
	resp, err := c.do(ctx, http.MethodPost, "/images/load", url.Values{"quiet": {"1"}}, archive, "application/x-tar")
	if err != nil {
		return fmt.Errorf("load image: %w", err)
	}
	defer resp.Body.Close()
	return streamError(resp.Body, "load image")
}

// ImageRemove deletes a local image tag.
func (c *Client) ImageRemove(ctx context.Context, ref string) error {
	return c.doJSON(ctx, http.MethodDelete, "/images/"+ref, url.Values{"force": {"1"}}, nil, nil)
}

// Commit writes container id as image ref. cfg replaces the container's
// config in the new image, so a commit can restore the original image's
// entrypoint and command after the container ran with other ones.
func (c *Client) Commit(ctx context.Context, id, ref string, cfg ImageConfig) error {
	repo, tag := splitRef(ref)
	q := url.Values{"container": {id}, "repo": {repo}, "tag": {tag}}
	if err := c.doJSON(ctx, http.MethodPost, "/commit", q, cfg, nil); err != nil {
		return fmt.Errorf("commit %s as %s: %w", id, ref, err)
	}
	return nil
}

// streamError reads a JSON progress stream and returns the first error
// message it carries; the engine reports some failures with HTTP 200.
func streamError(r io.Reader, what string) error {
	dec := json.NewDecoder(r)
	for {
		var m struct {
			Error       string `json:"error"`
			ErrorDetail struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		if err := dec.Decode(&m); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%s: read progress: %w", what, err)
		}
		if m.Error != "" {
			return fmt.Errorf("%s: %s", what, m.Error)
		}
	}
}

// splitRef splits "name:tag" (a registry port is not a tag).
func splitRef(ref string) (repo, tag string) {
	i := strings.LastIndex(ref, ":")
	if i < 0 || strings.Contains(ref[i:], "/") {
		return ref, "latest"
	}
	return ref[:i], ref[i+1:]
}
