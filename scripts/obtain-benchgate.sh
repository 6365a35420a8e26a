#!/usr/bin/env bash
# Puts the benchgate binary for this runner on disk and writes its path to
# the step output "path". Run by action.yml's first step.
#
# A release commit (its tree has dist/SHA256SUMS and dist/VERSION, written
# by scripts/release-binaries.sh before the tag) downloads the asset of
# the release dist/VERSION names for the runner's OS and architecture,
# whatever ref pinned it (the tag v1.2.3, the major tag v1, or the
# commit's full SHA), and checks it against that file: the sums come from
# the action's own source at the ref the workflow pinned, not from the
# server the binary comes from. Any other ref (a branch, a SHA of another
# commit, a local checkout) is built from the action's source with the
# runner's Go, statically and without local paths, as the Dockerfile
# builds it.
#
# A release binary is kept under the runner's tool cache by its hash, so
# later steps and jobs on the same runner reuse it, and is checked against
# dist/SHA256SUMS again before every use. A build from source has no such
# sums to check a cached file against (anything running as the runner's
# user can write the cache), so it is never reused from there: each step
# builds it again into a folder of its own, which Go's build cache makes
# quick.
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
    # The release this tree is: dist/VERSION, so that a major tag or a
    # full commit SHA finds the release its commit was cut for.
    release=$ref
    if [ -f "$src/dist/VERSION" ]; then
      release=$(tr -d ' \t\r\n' <"$src/dist/VERSION")
      [[ $release =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "$src/dist/VERSION holds '$release', expected vX.Y.Z"
    fi
    [ -n "$release" ] || fail "a release tree ($sums) needs dist/VERSION or github.action_ref to name the release"
    url="${GITHUB_SERVER_URL:-https://github.com}/$repo/releases/download/$release/$asset"
    mkdir -p "$dir"
    tmp=$(mktemp "$dir/.download.XXXXXX")
    trap 'rm -f "$tmp"' EXIT
    curl --fail --silent --show-error --location --retry 3 --output "$tmp" "$url" ||
      fail "could not download $url"
    got=$(sha256sum "$tmp" | cut -d' ' -f1)
    [ "$got" = "$want" ] || fail "$url has sha256 $got, but $sums (the action's source at ${ref:-$release}) says $want; refusing to run it"
    chmod 0755 "$tmp"
    mv -f "$tmp" "$bin"
  fi
  emit "$bin"
  exit 0
fi

command -v go >/dev/null 2>&1 ||
  fail "the action at ref '${ref:-local}' is not a release (no dist/SHA256SUMS), so benchgate is built from its source, which needs Go on the runner: add actions/setup-go before this step, or use a release tag"
dir=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/benchgate-build.XXXXXX")
bin="$dir/benchgate"
echo "benchgate: building from $src with $(go version)"
(cd "$src" && CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -o "$bin" ./cmd/benchgate) ||
  fail "go build of benchgate from $src failed (see the log above)"
emit "$bin"
