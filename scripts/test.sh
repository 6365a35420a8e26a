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
# BENCHGATE_TEST_LOAD=N runs N busy loops per core beside the tests, as a
# busy CI machine would: the tests wait for what they wait for, never for a
# fixed time, so they must pass under it (slower).
load_pids=()
stop_load() {
  if [ ${#load_pids[@]} -gt 0 ]; then kill "${load_pids[@]}" 2>/dev/null || true; fi
}
trap stop_load EXIT
load=${BENCHGATE_TEST_LOAD:-0}
if [ "$load" -gt 0 ]; then
  loops=$((load * $(nproc)))
  echo "== load: $loops busy loops beside the tests"
  for _ in $(seq 1 "$loops"); do
    sh -c 'while :; do :; done' &
    load_pids+=($!)
  done
fi
echo "== go test"
go test -count=1 -timeout 60m ./... "$@"
