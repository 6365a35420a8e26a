package swebench

import (
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/container"
	"github.com/benchgate/benchgate/internal/ralph"
	"github.com/benchgate/benchgate/internal/testsupport/swebenchtest"
)

var (
	dockerClient = swebenchtest.Docker
	importImage  = swebenchtest.ImportImage
	fakeCodex    = swebenchtest.FakeCodex
	noLeaks      = swebenchtest.NoLeaks
	datasetFile  = swebenchtest.DatasetFile
	readJSON     = swebenchtest.ReadJSON
	// writeTarWithLinks adds /bin/<applet> symlinks to busybox to a rootfs tar.
	writeTarWithLinks = swebenchtest.WriteTarWithLinks
)

// baseOptions is a run of the fake codex scenario with images named by tmpl.
func baseOptions(t testing.TB, dc *container.Client, dataset, tmpl, scenario string) Options {
	t.Helper()
	p, err := ralph.LoadPrompts("")
	if err != nil {
		t.Fatal(err)
	}
	return Options{MaxLoops: 3, PhaseTimeout: time.Minute, Prompts: p, DatasetFile: dataset, ImageTemplate: tmpl,
		Env: []string{"FAKE_CODEX_SCENARIO=" + scenario}, Network: "none", Docker: dc}
}
