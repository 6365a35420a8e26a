#!/usr/bin/env bash
# Runs every check and test of the project on a fresh machine: installs
# what the tests need, starts a private Docker engine, then gofmt, go vet
# and go test over all packages.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/test-env.sh

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" >&2
  echo "$unformatted" >&2
  exit 1
fi
echo "== go vet"
go vet ./...
echo "== go test"
go test -count=1 -timeout 30m ./... "$@"
