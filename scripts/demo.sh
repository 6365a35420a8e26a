#!/usr/bin/env bash
# The main job on an embedded default: builds benchgate and the benchmark
# simulator into ./bin, seeds a simulated fixture manifest, and runs
# "benchgate ordered" over the nine scenario sets of examples/ (real
# upstream scenario data, simulated benchmark). No GitHub token and no
# model endpoint are needed. Everything it writes goes under reports/,
# which git ignores. Extra arguments are passed to "benchgate ordered".
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

mkdir -p bin
go build -o bin/benchgate ./cmd/benchgate
go build -o bin/benchsim ./cmd/benchsim
export PATH="$root/bin:$PATH"

out="$root/reports/demo-$(date -u +%Y%m%dT%H%M%SZ)-$$"
manifest="$out/fixtures/latest.json"
benchsim fixtures seed --seed-id demo-shared --out "$manifest" >/dev/null

status=0
summary=$(benchgate ordered --config examples/bench.json --provider openai \
  --model gpt-5.1-codex-mini --repetitions 1 \
  --fixture-manifest "$manifest" --out-dir "$out" "$@") || status=$?
# benchgate ordered prints the consolidated summary's JSON path itself.
echo "$summary"
echo "consolidated summary (Markdown): $out/consolidated-summary.md"
exit "$status"
