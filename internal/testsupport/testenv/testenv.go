// Package testenv gives tests the real components scripts/test-env.sh
// installs and starts. Outside that script a missing component skips the
// test; under it (BENCHGATE_TEST_REQUIRE=1, as in CI) it fails the test,
// so a broken setup can never pass as green.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

func require(t testing.TB, what, hint string) {
	t.Helper()
	if os.Getenv("BENCHGATE_TEST_REQUIRE") == "1" {
		t.Fatalf("%s is not available: %s (scripts/test-env.sh sets it up)", what, hint)
	}
	t.Skipf("%s is not available: %s; run scripts/test.sh", what, hint)
}

// DockerHost returns the DOCKER_HOST of the private test engine.
func DockerHost(t testing.TB) string {
	t.Helper()
	h := os.Getenv("BENCHGATE_TEST_DOCKER_HOST")
	if h == "" {
		require(t, "the Docker engine", "BENCHGATE_TEST_DOCKER_HOST is empty")
	}
	return h
}

// Codex returns the path of the pinned real Codex CLI binary.
func Codex(t testing.TB) string {
	t.Helper()
	p := os.Getenv("BENCHGATE_TEST_CODEX")
	if p == "" {
		require(t, "the Codex CLI", "BENCHGATE_TEST_CODEX is empty")
	}
	return p
}

// Busybox returns the path of a static busybox binary for test images.
func Busybox(t testing.TB) string {
	t.Helper()
	p := os.Getenv("BENCHGATE_TEST_BUSYBOX")
	if p == "" {
		p = "/bin/busybox"
	}
	if _, err := os.Stat(p); err != nil {
		require(t, "a static busybox", err.Error())
	}
	return p
}

// Python returns a python3 interpreter that can import pytest.
func Python(t testing.TB) string {
	t.Helper()
	p := os.Getenv("BENCHGATE_TEST_PYTHON")
	if p == "" {
		p = "/usr/bin/python3"
	}
	if err := exec.Command(p, "-c", "import pytest").Run(); err != nil {
		require(t, "python3 with pytest", p+": "+err.Error())
	}
	return p
}

// RepoRoot returns the repository root, found from this source file.
func RepoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the repository root")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// SharedData returns the folder of real upstream data beside the checkout
// (../shared/data), or skips when it is absent. Tests prefer the copies
// under testdata/, which always exist.
func SharedData(t testing.TB) string {
	t.Helper()
	p := filepath.Join(RepoRoot(t), "..", "shared", "data")
	if _, err := os.Stat(p); err != nil {
		t.Skip("../shared/data is not beside this checkout")
	}
	return p
}

// Pnpm returns the pinned pnpm the example workflows run the benchmark's
// contract with.
func Pnpm(t testing.TB) string {
	t.Helper()
	p := os.Getenv("BENCHGATE_TEST_PNPM")
	if p == "" {
		require(t, "pnpm", "BENCHGATE_TEST_PNPM is empty")
	}
	return p
}

// Missing skips the test (or fails it under BENCHGATE_TEST_REQUIRE=1)
// because the real component what is not there; hint says why. Helper
// packages under testenv use it so every real component is required the
// same way.
func Missing(t testing.TB, what, hint string) {
	t.Helper()
	require(t, what, hint)
}
