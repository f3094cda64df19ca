#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzzing build (-DNEURON_SERVE_FUZZ=ON) over its seed corpus
# for a bounded time, FUZZ_JOBS targets at a time (default 1; each libFuzzer process uses one
# core, so CI runs two on its two cores).
#
#   [FUZZ_JOBS=N] tests/fuzz/run.sh BUILD_DIR SECONDS_PER_TARGET [TARGET...]
#
# TARGET is a parser name (v2_rest_request, token_set, ...); none given: every <parser>_fuzz in
# BUILD_DIR/tests/fuzz. Each target runs over a copy of tests/fuzz/<parser>/ and its regressions/
# in a temporary folder, so the committed corpus does not change (the copy grows as the fuzzer
# finds new coverage). Prints each target's executions and corpus size, in the order the targets
# were named. On a crash, a leak or a timeout it prints the fuzzer's report and the input as hex,
# keeps the temporary folder, and exits 1 once every target has run.
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

jobs=${FUZZ_JOBS:-1}
case $jobs in
  '' | *[!0-9]* | 0) echo "$0: FUZZ_JOBS must be a positive number, not '$jobs'" >&2; exit 2 ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/neuron-serve-fuzz.XXXXXX")

# Runs one target; writes what it has to say to $work/<target>/report and exits non-zero when
# the target failed. Runs in a background job, so it prints nothing itself.
fuzz_target() {
  local target=$1
  local binary="$build_dir/tests/fuzz/${target}_fuzz"
  local seeds="$source_dir/$target"
  local report="$work/$target/report"
  mkdir -p "$work/$target"
  if [ ! -x "$binary" ] || [ ! -d "$seeds" ]; then
    echo "$target: no binary $binary or no corpus $seeds" >"$report"
    return 1
  fi
  exec >"$report" 2>&1
  local corpus="$work/$target/corpus"
  local artifacts="$work/$target/artifacts/"
  mkdir -p "$corpus" "$artifacts"
  # Seeds and regressions, flattened into one folder (libFuzzer reads a folder's files only).
  find "$seeds" -type f -exec cp -t "$corpus" {} +
  local log="$work/$target/log"
  local status=0
  "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts" "$corpus" >"$log" 2>&1 || status=$?
  local runs size
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  size=$(find "$corpus" -type f | wc -l)
  echo "$target: ${runs:-?} executions in ${seconds} s, corpus ${size} inputs (exit $status)"
  if [ $status -ne 0 ]; then
    echo "---- $target failed; its report:"
    grep -v '^#[0-9]' "$log" | tail -60 || true
    for input in "$artifacts"*; do
      [ -f "$input" ] || continue
      echo "---- $target input $(basename "$input") ($(wc -c <"$input") bytes), as hex:"
      od -An -v -tx1 "$input" | tr -d " " | head -200  # coreutils: on every machine
    done
    return 1
  fi
}

# Start the targets, at most $jobs at a time; a target that fails leaves a "failed" file. Then
# report in the order they were named.
running=0
for target in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  (fuzz_target "$target" || touch "$work/$target/failed") &
  running=$((running + 1))
done
wait
failed=0
for target in "${targets[@]}"; do
  cat "$work/$target/report"
  if [ -e "$work/$target/failed" ]; then failed=1; fi
done

if [ $failed -ne 0 ]; then
  echo "fuzzing failed; logs, corpora and inputs are in $work" >&2
  exit 1
fi
rm -rf "$work"
