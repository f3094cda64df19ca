#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzzing build (-DNEURON_SERVE_FUZZ=ON) over its seed corpus
# for a bounded time, one target after the other.
#
#   tests/fuzz/run.sh BUILD_DIR SECONDS_PER_TARGET [TARGET...]
#
# TARGET is a parser name (v2_rest_request, token_set, ...); none given: every <parser>_fuzz in
# BUILD_DIR/tests/fuzz. Each target runs over a copy of tests/fuzz/<parser>/ and its regressions/
# in a temporary folder, so the committed corpus does not change (the copy grows as the fuzzer
# finds new coverage). Prints each target's executions and corpus size. On a crash, a leak or a
# timeout it prints the fuzzer's report and the input as hex, keeps the temporary folder, and
# exits 1 once every target has run.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS_PER_TARGET [TARGET...]" >&2
  exit 2
fi
build_dir=$(cd "$1" && pwd)
seconds=$2
shift 2
source_dir=$(cd "$(dirname "$0")" && pwd)

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for binary in "$build_dir"/tests/fuzz/*_fuzz; do
    [ -x "$binary" ] || continue
    name=$(basename "$binary")
    targets+=("${name%_fuzz}")
  done
fi
if [ ${#targets[@]} -eq 0 ]; then
  echo "$0: no *_fuzz targets in $build_dir/tests/fuzz (configure with -DNEURON_SERVE_FUZZ=ON)" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/neuron-serve-fuzz.XXXXXX")
failed=0
for target in "${targets[@]}"; do
  binary="$build_dir/tests/fuzz/${target}_fuzz"
  seeds="$source_dir/$target"
  if [ ! -x "$binary" ] || [ ! -d "$seeds" ]; then
    echo "$target: no binary $binary or no corpus $seeds" >&2
    failed=1
    continue
  fi
  corpus="$work/$target/corpus"
  artifacts="$work/$target/artifacts/"
  mkdir -p "$corpus" "$artifacts"
  # Seeds and regressions, flattened into one folder (libFuzzer reads a folder's files only).
  find "$seeds" -type f -exec cp -t "$corpus" {} +
  log="$work/$target/log"
  status=0
  "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts" "$corpus" >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  size=$(find "$corpus" -type f | wc -l)
  echo "$target: ${runs:-?} executions in ${seconds} s, corpus ${size} inputs (exit $status)"
  if [ $status -ne 0 ]; then
    failed=1
    echo "---- $target failed; its report:"
    grep -v '^#[0-9]' "$log" | tail -60 || true
    for input in "$artifacts"*; do
      [ -f "$input" ] || continue
      echo "---- $target input $(basename "$input") ($(wc -c <"$input") bytes), as hex:"
      od -An -v -tx1 "$input" | tr -d " " | head -200  # coreutils: on every machine
    done
  fi
done

if [ $failed -ne 0 ]; then
  echo "fuzzing failed; logs, corpora and inputs are in $work" >&2
  exit 1
fi
rm -rf "$work"
