#!/usr/bin/env bash
# Builds the release binaries of benchgate into dist/ and writes
# dist/SHA256SUMS and dist/VERSION, which the release commit carries: a
# workflow that uses the action at that commit (the release tag, the major
# tag the release workflow moves to it, or its full SHA) downloads the
# binary of the release dist/VERSION names and checks it against the sums
# (scripts/obtain-benchgate.sh). The builds are reproducible
# (static, -trimpath, no build ID, the version stamped from the argument),
# so the release workflow builds again and must get the same sums.
#
# usage: scripts/release-binaries.sh vX.Y.Z [--check]
#   --check  build and compare with the committed dist/SHA256SUMS instead
#            of writing it (the release workflow's check)
set -euo pipefail
cd "$(dirname "$0")/.."

version=${1:?usage: scripts/release-binaries.sh vX.Y.Z [--check]}
check=${2:-}
[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "release-binaries: version $version: expected vX.Y.Z" >&2; exit 2; }

mkdir -p dist
sums=$(mktemp)
trap 'rm -f "$sums"' EXIT
for arch in amd64 arm64; do
  out="dist/benchgate-linux-$arch"
  CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath -buildvcs=false \
    -ldflags "-s -w -buildid= -X github.com/benchgate/benchgate/internal/cli.Version=$version" \
    -o "$out" ./cmd/benchgate
  (cd dist && sha256sum "benchgate-linux-$arch") >>"$sums"
done

if [ "$check" = "--check" ]; then
  if ! diff -u dist/SHA256SUMS "$sums"; then
    echo "release-binaries: the binaries built here differ from dist/SHA256SUMS of the release commit" >&2
    exit 1
  fi
  if [ "$(cat dist/VERSION 2>/dev/null)" != "$version" ]; then
    echo "release-binaries: dist/VERSION of the release commit is '$(cat dist/VERSION 2>/dev/null)', not $version" >&2
    exit 1
  fi
  echo "release-binaries: the binaries match dist/SHA256SUMS"
else
  cp "$sums" dist/SHA256SUMS
  echo "$version" >dist/VERSION
  echo "release-binaries: wrote dist/SHA256SUMS and dist/VERSION; commit them, then tag $version"
fi
