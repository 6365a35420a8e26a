package container

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// Spec describes a container to create.
type Spec struct {
	Name       string
	Image      string
	Entrypoint []string
	Cmd        []string
	Env        []string
	WorkingDir string
	User       string
	Labels     map[string]string
	// Binds are "host:container[:ro]" mounts.
	Binds []string
	// NetworkMode is "host", "none", "bridge" or empty for the default.
	NetworkMode string
	// ExtraHosts are "name:ip" entries, e.g. "host.docker.internal:host-gateway".
	ExtraHosts []string
}

type createBody struct {
	Image      string            `json:"Image"`
	Entrypoint []string          `json:"Entrypoint,omitempty"`
	Cmd        []string          `json:"Cmd,omitempty"`
	Env        []string          `json:"Env,omitempty"`
	WorkingDir string            `json:"WorkingDir,omitempty"`
	User       string            `json:"User,omitempty"`
	Labels     map[string]string `json:"Labels,omitempty"`
	HostConfig struct {
		Binds       []string `json:"Binds,omitempty"`
		NetworkMode string   `json:"NetworkMode,omitempty"`
		ExtraHosts  []string `json:"ExtraHosts,omitempty"`
		Init        bool     `json:"Init"`
	} `json:"HostConfig"`
}

// Create creates (but does not start) a container and returns its ID. A
// container left over with the same name is removed first, so a rerun
// after a crash does not fail on a name conflict.
func (c *Client) Create(ctx context.Context, s Spec) (string, error) {
	b := createBody{Image: s.Image, Entrypoint: s.Entrypoint, Cmd: s.Cmd, Env: s.Env,
		WorkingDir: s.WorkingDir, User: s.User, Labels: s.Labels}
	b.HostConfig.Binds = s.Binds
	b.HostConfig.NetworkMode = s.NetworkMode
	b.HostConfig.ExtraHosts = s.ExtraHosts
	if s.Name != "" {
		if err := c.Remove(ctx, s.Name); err != nil && !errors.Is(err, ErrNotFound) {
			return "", err
		}
	}
	var out struct {
		ID string `json:"Id"`
	}
	q := url.Values{}
	if s.Name != "" {
		q.Set("name", s.Name)
	}
	if err := c.doJSON(ctx, http.MethodPost, "/containers/create", q, b, &out); err != nil {
		return "", fmt.Errorf("create container %s from %s: %w", s.Name, s.Image, err)
	}
	return out.ID, nil
}

// Start starts a created container.
func (c *Client) Start(ctx context.Context, id string) error {
	if err := c.doJSON(ctx, http.MethodPost, "/containers/"+id+"/start", nil, nil, nil); err != nil {
		return fmt.Errorf("start container %s: %w", id, err)
	}
	return nil
}

// Remove force-removes a container (killing it if it runs) with its
// anonymous volumes. The error wraps ErrNotFound when there is none.
func (c *Client) Remove(ctx context.Context, id string) error {
	q := url.Values{"force": {"1"}, "v": {"1"}}
	if err := c.doJSON(ctx, http.MethodDelete, "/containers/"+id, q, nil, nil); err != nil {
		return fmt.Errorf("remove container %s: %w", id, err)
	}
	return nil
}

// RemoveDetached removes a container with a fresh context bounded by
// timeout. Cleanup paths use it because their own context may already be
// cancelled (SIGTERM) when they run.
func (c *Client) RemoveDetached(id string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := c.Remove(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// Summary is one entry of a container listing.
type Summary struct {
	ID     string            `json:"Id"`
	Names  []string          `json:"Names"`
	Image  string            `json:"Image"`
	State  string            `json:"State"`
	Labels map[string]string `json:"Labels"`
}

// List returns all containers (running or not) that carry label, given
// as "key" or "key=value".
func (c *Client) List(ctx context.Context, label string) ([]Summary, error) {
	f, _ := json.Marshal(map[string][]string{"label": {label}})
	q := url.Values{"all": {"1"}, "filters": {string(f)}}
	var out []Summary
	if err := c.doJSON(ctx, http.MethodGet, "/containers/json", q, nil, &out); err != nil {
		return nil, fmt.Errorf("list containers with label %s: %w", label, err)
	}
	return out, nil
}
