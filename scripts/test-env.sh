#!/usr/bin/env bash
# Installs what the test suite needs on a fresh Debian machine and starts
# the servers it uses. Source it (". scripts/test-env.sh") so that the
# exported variables reach the tests; scripts/test.sh does.
#
# Exports:
#   BENCHGATE_TEST_DOCKER_HOST  unix socket of a private Docker engine
#   BENCHGATE_TEST_CODEX        path of the pinned real Codex CLI binary
#   BENCHGATE_TEST_BUSYBOX      static busybox, the root file system of test images
#   BENCHGATE_TEST_PNPM        pnpm (pinned, from npm), for the example workflows under act
#   BENCHGATE_TEST_PYTHON       a python3 with pytest (Debian's python3-pytest)
#   BENCHGATE_TEST_MERMAID      mermaid.min.js of the pinned npm mermaid, drawn in chromium
#   BENCHGATE_TEST_CODEX_ARM64  the pinned Codex CLI built for arm64 (the users' runners)
#   BENCHGATE_TEST_ARM64_ROOT   Debian's arm64 busybox-static, git and bash with their
#                               libraries, unpacked: the files of arm64 instance images
#   BENCHGATE_TEST_REQUIRE      "1": tests fail instead of skipping when a component is missing
#   BENCHGATE_TEST_STATE        the state folder (below), where the tests also keep the
#                               binaries they build (testenv.Build)
#
# Everything it installs or starts lives in the state folder, $BENCHGATE_TEST_STATE
# (default /tmp/benchgate-test): the Codex CLI, the Docker engine's socket, data and logs.
# Two runs at once (two checkouts) that must not share an engine each set their own, e.g.
# BENCHGATE_TEST_STATE=$HOME/.cache/benchgate-test-2 ./scripts/test.sh
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CODEX_VERSION=0.169.0
state_dir=${BENCHGATE_TEST_STATE:-/tmp/benchgate-test}
mkdir -p "$state_dir"
state_dir=$(cd "$state_dir" && pwd)
export BENCHGATE_TEST_STATE="$state_dir"

need_apt=()
command -v dockerd >/dev/null 2>&1 || need_apt+=(docker.io)
[ -x /bin/busybox ] && file -L /bin/busybox 2>/dev/null | grep -q static || need_apt+=(busybox-static)
/usr/bin/python3 -c 'import pytest' >/dev/null 2>&1 || need_apt+=(python3-pytest)
/usr/bin/python3 -c 'import ensurepip' >/dev/null 2>&1 || need_apt+=(python3-venv)
command -v file >/dev/null 2>&1 || need_apt+=(file)
# GitHub's Markdown engine: every Markdown file benchgate writes is
# rendered through it in the tests (internal/testsupport/gfm).
command -v cmark-gfm >/dev/null 2>&1 || need_apt+=(cmark-gfm)
# The job summaries' mermaid charts are drawn with the real mermaid in
# headless Chromium (internal/testsupport/mermaid).
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
# The status marks of comments and summaries (✅ ❌ ⚠️) drawn as GitHub
# shows them in docs/images, not as empty boxes.
[ -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ] || need_apt+=(fonts-noto-color-emoji)
# qa-audit's question banks: typeshed's stubs (platform and version guards
# of the standard library) come with Debian's mypy; pydantic 1.10 is a
# library the banks ask about.
[ -f /usr/lib/python3/dist-packages/mypy/typeshed/stdlib/VERSIONS ] || need_apt+=(python3-mypy)
/usr/bin/python3 -c 'import pydantic' >/dev/null 2>&1 || need_apt+=(python3-pydantic)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "test-env: installing ${need_apt[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq "${need_apt[@]}" >&2
fi

# npm_unpack DIR PACKAGE: the npm registry's tarball of PACKAGE (name@version,
# pinned) unpacked into a new DIR, as DIR/package. Packages come this way,
# not by npm install: nothing of them runs on install.
npm_unpack() {
  echo "test-env: fetching $2" >&2
  rm -rf "$1" && mkdir -p "$1"
  (cd "$1" && npm pack --silent "$2" >/dev/null && tar -xzf ./*.tgz && rm -f ./*.tgz)
}

# The real Codex CLI, pinned. Only the platform package is installed: it
# carries the static musl binary the tests run.
arch=$(uname -m)
case "$arch" in
  x86_64) codex_pkg="@openai/codex@${CODEX_VERSION}-linux-x64"; codex_target=x86_64-unknown-linux-musl ;;
  aarch64) codex_pkg="@openai/codex@${CODEX_VERSION}-linux-arm64"; codex_target=aarch64-unknown-linux-musl ;;
  *) echo "test-env: no Codex build for $arch" >&2; codex_pkg="" ;;
esac
codex_dir="$state_dir/codex-$CODEX_VERSION"
codex_bin="$codex_dir/package/vendor/$codex_target/bin/codex"
if [ -n "$codex_pkg" ] && [ ! -x "$codex_bin" ]; then
  npm_unpack "$codex_dir" "$codex_pkg"
fi
if [ -x "$codex_bin" ]; then
  export BENCHGATE_TEST_CODEX="$codex_bin"
fi

# pnpm, pinned, from the npm registry: the example workflows run the
# benchmark's default contract (pnpm --filter @ghx-dev/benchmark run
# benchmark) through it. Its folder bin/ goes on the runner's PATH.
PNPM_VERSION=9.15.9
pnpm_dir="$state_dir/pnpm-$PNPM_VERSION"
if command -v node >/dev/null 2>&1 && [ ! -x "$pnpm_dir/bin/pnpm" ]; then
  npm_unpack "$pnpm_dir" "pnpm@$PNPM_VERSION"
  mkdir -p "$pnpm_dir/bin"
  printf '#!/bin/sh\nexec node "%s/package/bin/pnpm.cjs" "$@"\n' "$pnpm_dir" >"$pnpm_dir/bin/pnpm"
  chmod +x "$pnpm_dir/bin/pnpm"
fi
if [ -x "$pnpm_dir/bin/pnpm" ]; then
  export BENCHGATE_TEST_PNPM="$pnpm_dir/bin/pnpm"
fi

# mermaid, pinned, from the npm registry: its browser bundle draws the
# job summaries' charts in the tests, as GitHub draws them.
MERMAID_VERSION=12.3.0
mermaid_dir="$state_dir/mermaid-$MERMAID_VERSION"
mermaid_js="$mermaid_dir/package/dist/mermaid.min.js"
if [ ! -f "$mermaid_js" ]; then
  npm_unpack "$mermaid_dir" "mermaid@$MERMAID_VERSION"
fi
if [ -f "$mermaid_js" ]; then
  export BENCHGATE_TEST_MERMAID="$mermaid_js"
fi

# A private Docker engine: its own socket, data root and exec root, no
# iptables and no bridge, so it neither needs nor touches host networking.
docker_dir="$state_dir/docker"
docker_sock="$docker_dir/docker.sock"
if [ ${#docker_sock} -gt 100 ]; then
  echo "test-env: $docker_sock is too long for a Unix socket (over 100 bytes); choose a shorter BENCHGATE_TEST_STATE" >&2
  exit 1
fi
mkdir -p "$docker_dir"
if ! DOCKER_HOST="unix://$docker_sock" docker version >/dev/null 2>&1; then
  echo "test-env: starting dockerd on $docker_sock" >&2
  nohup dockerd --host "unix://$docker_sock" --data-root "$docker_dir/data" \
    --exec-root "$docker_dir/exec" --pidfile "$docker_dir/dockerd.pid" \
    --iptables=false --ip6tables=false --bridge=none >"$docker_dir/dockerd.log" 2>&1 &
  for _ in $(seq 1 60); do
    DOCKER_HOST="unix://$docker_sock" docker version >/dev/null 2>&1 && break
    sleep 0.5
  done
fi
if DOCKER_HOST="unix://$docker_sock" docker version >/dev/null 2>&1; then
  export BENCHGATE_TEST_DOCKER_HOST="unix://$docker_sock"
else
  echo "test-env: dockerd did not start; see $docker_dir/dockerd.log" >&2
  tail -20 "$docker_dir/dockerd.log" >&2 || true
fi

# ARM64, the platform SWE-bench runners use. Off arm64, qemu-user-static
# with binfmt-support lets this machine (and the Docker engine) run arm64
# binaries; the F flag Debian registers them with keeps the emulator
# usable inside containers.
if [ "$arch" != aarch64 ]; then
  if [ ! -x /usr/bin/qemu-aarch64-static ] || ! command -v update-binfmts >/dev/null 2>&1; then
    echo "test-env: installing qemu-user-static binfmt-support" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq qemu-user-static binfmt-support >&2
  fi
  if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc >&2 || true
  fi
  if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
    update-binfmts --enable qemu-aarch64 >&2 || true
  fi
  if ! grep -q '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null; then
    echo "test-env: qemu-aarch64 is not registered with binfmt_misc; arm64 tests cannot run" >&2
  fi
fi
# Debian's arm64 packages, unpacked: real git and bash (no stand-ins) for
# arm64 instance images. The folder is made whole or not at all.
arm64_root="$state_dir/arm64-root"
if [ ! -x "$arm64_root/usr/bin/git" ]; then
  echo "test-env: fetching Debian's arm64 busybox-static, git and bash" >&2
  if ! dpkg --print-foreign-architectures | grep -qx arm64 && [ "$(dpkg --print-architecture)" != arm64 ]; then
    dpkg --add-architecture arm64
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  debs="$state_dir/arm64-debs"
  rm -rf "$debs" "$arm64_root.tmp" && mkdir -p "$debs" "$arm64_root.tmp"
  chmod 777 "$debs"
  (cd "$debs" && apt-get download -qq busybox-static:arm64 git:arm64 bash:arm64 libc6:arm64 \
    libpcre2-8-0:arm64 zlib1g:arm64 libtinfo6:arm64 >&2)
  for deb in "$debs"/*.deb; do dpkg -x "$deb" "$arm64_root.tmp"; done
  rm -rf "$arm64_root" "$debs" && mv "$arm64_root.tmp" "$arm64_root"
fi
export BENCHGATE_TEST_ARM64_ROOT="$arm64_root"
# The pinned Codex CLI for arm64 (the native one on an arm64 machine).
if [ "$arch" = aarch64 ]; then
  [ -n "${BENCHGATE_TEST_CODEX:-}" ] && export BENCHGATE_TEST_CODEX_ARM64="$BENCHGATE_TEST_CODEX"
else
  codex_arm64_dir="$state_dir/codex-$CODEX_VERSION-arm64"
  codex_arm64_bin="$codex_arm64_dir/package/vendor/aarch64-unknown-linux-musl/bin/codex"
  if [ ! -x "$codex_arm64_bin" ]; then
    npm_unpack "$codex_arm64_dir" "@openai/codex@${CODEX_VERSION}-linux-arm64"
  fi
  [ -x "$codex_arm64_bin" ] && export BENCHGATE_TEST_CODEX_ARM64="$codex_arm64_bin"
fi

export BENCHGATE_TEST_BUSYBOX=/bin/busybox
# Debian's python3 carries python3-pytest (a pyenv python on PATH may not).
export BENCHGATE_TEST_PYTHON=/usr/bin/python3
export BENCHGATE_TEST_REQUIRE=1
export BENCHGATE_REPO_ROOT="$repo_root"
