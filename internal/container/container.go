package container

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
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
	// Mounts are bind mounts whose source must exist.
	Mounts []Mount
	// NetworkMode is "host", "none", "bridge" or empty for the default.
	NetworkMode string
	// ExtraHosts are "name:ip" entries, e.g. "host.docker.internal:host-gateway".
	ExtraHosts []string
	// CapDrop and CapAdd change the engine's default capabilities
	// ("ALL", "CHOWN", ...); SecurityOpt holds options such as
	// "no-new-privileges". See LeastPrivilege.
	CapDrop     []string
	CapAdd      []string
	SecurityOpt []string
	// Memory caps the container's memory (bytes, its cgroup); PidsLimit
	// its processes; Ulimits set resource limits of its processes
	// ("as", "cpu", "fsize", "nproc"). Zero values leave the engine's
	// defaults.
	Memory    int64
	PidsLimit int64
	Ulimits   []Ulimit
}

// Ulimit is one resource limit of a container's processes.
type Ulimit struct {
	Name string `json:"Name"`
	Soft int64  `json:"Soft"`
	Hard int64  `json:"Hard"`
}

// AgentCapabilities are the only capabilities LeastPrivilege keeps for
// root in a container where an agent works: it must write into a bind
// mount owned by the invoking user (DAC_OVERRIDE), change modes and
// owners of files it unpacks (FOWNER, CHOWN), let package managers drop
// to their own users (SETUID, SETGID), signal its own processes (KILL)
// and bind test servers to low ports (NET_BIND_SERVICE). Left out on
// purpose: MKNOD (device nodes in the output folder would give whoever
// owns them the device), FSETID (a chown keeps setuid bits), SETFCAP
// (file capabilities on a binary in the output folder), NET_RAW,
// SETPCAP, SYS_CHROOT and AUDIT_WRITE.
var AgentCapabilities = []string{"CHOWN", "DAC_OVERRIDE", "FOWNER", "SETUID", "SETGID", "KILL", "NET_BIND_SERVICE"}

// LeastPrivilege returns s with every capability dropped but caps and
// with no-new-privileges, so that no setuid binary or file capability
// inside the container raises a process above what it started with.
func LeastPrivilege(s Spec, caps ...string) Spec {
	s.CapDrop = []string{"ALL"}
	s.CapAdd = append([]string(nil), caps...)
	s.SecurityOpt = append(append([]string(nil), s.SecurityOpt...), "no-new-privileges")
	return s
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
		Binds       []string    `json:"Binds,omitempty"`
		Mounts      []mountSpec `json:"Mounts,omitempty"`
		NetworkMode string      `json:"NetworkMode,omitempty"`
		ExtraHosts  []string    `json:"ExtraHosts,omitempty"`
		CapDrop     []string    `json:"CapDrop,omitempty"`
		CapAdd      []string    `json:"CapAdd,omitempty"`
		SecurityOpt []string    `json:"SecurityOpt,omitempty"`
		Init        bool        `json:"Init"`
		Memory      int64       `json:"Memory,omitempty"`
		PidsLimit   int64       `json:"PidsLimit,omitempty"`
		Ulimits     []Ulimit    `json:"Ulimits,omitempty"`
	} `json:"HostConfig"`
}

// mountSpec is the engine API's HostConfig.Mounts entry.
type mountSpec struct {
	Type     string `json:"Type"`
	Source   string `json:"Source"`
	Target   string `json:"Target"`
	ReadOnly bool   `json:"ReadOnly,omitempty"`
}

// Create creates (but does not start) a container and returns its ID.
// Nothing is removed to make room: names must be unique per invocation
// (two runs of one instance ID on one engine each get their own), and a
// name already in use is an error, never a reason to kill another run's
// container.
//
// When ctx is cancelled while the request is in flight, the engine may
// still create the container after the client gave up; it is then removed
// by name, so a SIGTERM at that moment leaves no "Created" container.
func (c *Client) Create(ctx context.Context, s Spec) (string, error) {
	b := createBody{Image: s.Image, Entrypoint: s.Entrypoint, Cmd: s.Cmd, Env: s.Env,
		WorkingDir: s.WorkingDir, User: s.User, Labels: s.Labels}
	b.HostConfig.Binds = s.Binds
	for _, m := range s.Mounts {
		b.HostConfig.Mounts = append(b.HostConfig.Mounts, mountSpec{Type: "bind", Source: m.Source, Target: m.Target, ReadOnly: m.ReadOnly})
	}
	b.HostConfig.NetworkMode = s.NetworkMode
	b.HostConfig.ExtraHosts = s.ExtraHosts
	b.HostConfig.CapDrop, b.HostConfig.CapAdd, b.HostConfig.SecurityOpt = s.CapDrop, s.CapAdd, s.SecurityOpt
	b.HostConfig.Memory, b.HostConfig.PidsLimit, b.HostConfig.Ulimits = s.Memory, s.PidsLimit, s.Ulimits
	var out struct {
		ID string `json:"Id"`
	}
	q := url.Values{}
	if s.Name != "" {
		q.Set("name", s.Name)
	}
	err := c.doJSON(ctx, http.MethodPost, "/containers/create", q, b, &out)
	if err != nil && s.Name != "" {
		if ctx.Err() != nil {
			_ = c.RemoveDetached(s.Name, 30*time.Second)
		} else if id, ok := c.ownRetriedCreate(ctx, s, err); ok {
			return id, nil
		}
	}
	if err != nil {
		return "", fmt.Errorf("create container %s from %s: %w", s.Name, s.Image, err)
	}
	return out.ID, nil
}

// ownRetriedCreate handles a create that was retried after a reset
// connection and answered "name in use" because the first try did
// create it: when the container under that name carries exactly the
// labels asked for, it is this request's own.
func (c *Client) ownRetriedCreate(ctx context.Context, s Spec, err error) (string, bool) {
	if !strings.Contains(err.Error(), "(HTTP 409)") || len(s.Labels) == 0 {
		return "", false
	}
	var info struct {
		ID     string `json:"Id"`
		Config struct {
			Labels map[string]string `json:"Labels"`
		} `json:"Config"`
	}
	if c.doJSON(ctx, http.MethodGet, "/containers/"+s.Name+"/json", nil, nil, &info) != nil {
		return "", false
	}
	for k, v := range s.Labels {
		if info.Config.Labels[k] != v {
			return "", false
		}
	}
	return info.ID, true
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
