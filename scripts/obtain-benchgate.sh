#!/usr/bin/env bash
# Puts the benchgate binary for this runner on disk and writes its path to
# the step output "path". Run by action.yml's first step.
#
# A release ref (its tree has dist/SHA256SUMS, written by the release
# workflow before the tag) downloads the release asset for the runner's
# OS and architecture and checks it against that file: the sums come from
# the action's own source at the ref the workflow pinned, not from the
# server the binary comes from. Any other ref (a branch, a SHA, a local
# checkout) is built from the action's source with the runner's Go,
# statically and without local paths, as the Dockerfile builds it.
#
# Either way the binary is kept under the runner's tool cache by content,
# so later steps and jobs on the same runner reuse it; a cached release
# binary is checked against dist/SHA256SUMS again before every use.
set -euo pipefail

src=${BENCHGATE_ACTION_PATH:?BENCHGATE_ACTION_PATH is not set (github.action_path)}
ref=${BENCHGATE_ACTION_REF:-}
repo=${BENCHGATE_ACTION_REPOSITORY:-benchgate/benchgate}
cache_root=${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}}/benchgate

fail() {
  echo "::error title=benchgate::$*"
  exit 1
}

os=$(uname -s | tr '[:upper:]' '[:lower:]')
case "$(uname -m)" in
  x86_64 | amd64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) fail "no benchgate build for the machine type $(uname -m) (amd64 and arm64 are supported)" ;;
esac

emit() {
  echo "path=$1" >>"${GITHUB_OUTPUT:-/dev/stdout}"
  echo "benchgate: $1 ($("$1" --version 2>/dev/null || echo 'version unknown'))"
}

sums="$src/dist/SHA256SUMS"
if [ -f "$sums" ]; then
  asset="benchgate-$os-$arch"
  want=$(awk -v f="$asset" '$2 == f || $2 == "*" f { print $1 }' "$sums")
  [ -n "$want" ] || fail "$sums has no line for $asset"
  dir="$cache_root/$want"
  bin="$dir/benchgate"
  # The cache is writable by anything that runs as the runner's user (an
  # earlier job, a benchmark's child): a file found there is run only
  # when it is a regular file with the sums' hash, and is downloaded
  # again otherwise. A FIFO or a link is never read.
  if [ -e "$bin" ] || [ -L "$bin" ]; then
    got=""
    if [ -f "$bin" ] && [ ! -L "$bin" ]; then
      got=$(sha256sum "$bin" | cut -d' ' -f1)
    fi
    if [ "$got" != "$want" ]; then
      echo "::warning title=benchgate::the cached $bin has sha256 ${got:-(not a regular file)}, but $sums says $want; downloading it again"
      rm -rf "$bin" || fail "could not remove the cached $bin, whose sha256 differs from $sums"
    fi
  fi
  if [ ! -x "$bin" ]; then
    [ -n "$ref" ] || fail "a release tree ($sums) needs github.action_ref to name the release"
    url="${GITHUB_SERVER_URL:-https://github.com}/$repo/releases/download/$ref/$asset"
    mkdir -p "$dir"
    tmp=$(mktemp "$dir/.download.XXXXXX")
    trap 'rm -f "$tmp"' EXIT
    curl --fail --silent --show-error --location --retry 3 --output "$tmp" "$url" ||
      fail "could not download $url"
    got=$(sha256sum "$tmp" | cut -d' ' -f1)
    [ "$got" = "$want" ] || fail "$url has sha256 $got, but $sums (the action's source at $ref) says $want; refusing to run it"
    chmod 0755 "$tmp"
    mv -f "$tmp" "$bin"
  fi
  emit "$bin"
  exit 0
fi

command -v go >/dev/null 2>&1 ||
  fail "the action at ref '${ref:-local}' is not a release (no dist/SHA256SUMS), so benchgate is built from its source, which needs Go on the runner: add actions/setup-go before this step, or use a release tag"
key=$(cd "$src" && { cat go.mod go.sum; find cmd internal -path '*/testdata' -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; } | sha256sum | cut -c1-16)
dir="$cache_root/src-$key-$os-$arch"
bin="$dir/benchgate"
if [ ! -x "$bin" ]; then
  mkdir -p "$dir"
  tmp=$(mktemp "$dir/.build.XXXXXX")
  trap 'rm -f "$tmp"' EXIT
  echo "benchgate: building from $src with $(go version)"
  (cd "$src" && CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -o "$tmp" ./cmd/benchgate) ||
    fail "go build of benchgate from $src failed (see the log above)"
  mv -f "$tmp" "$bin"
fi
emit "$bin"
