#!/usr/bin/env bash
# Runs both libFuzzer harnesses for SECONDS each, seeded with the bundled data (CSV files) and the
# model files of the format-compatibility tests, as text and in the binary encoding. Usage: run.sh BUILD_DIR SECONDS.
# New inputs that reach new code are kept in BUILD_DIR/corpus/, so a later run goes on from them;
# a crash leaves its input in BUILD_DIR/crashes/ and makes this script fail.
set -euo pipefail
build=$1
seconds=$2
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$build/corpus/csv" "$build/corpus/model_file" "$build/crashes"

run() {
  local harness=$1 corpus=$2 max_len=$3
  shift 3
  echo "fuzzing $harness for ${seconds}s"
  # -timeout: one input taking longer than this is a hang; -rss_limit_mb keeps a run within the
  # machine's memory next to the other builds.
  "$build/tests/fuzz/$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$build/crashes/$harness-" \
    "$corpus" "$@" 2>"$build/$harness.log" || {
    tail -n 40 "$build/$harness.log"
    return 1
  }
  grep -E "stat::number_of_executed_units|stat::new_units_added" "$build/$harness.log" |
    sed "s/^/  /"
}

run fuzz_csv "$build/corpus/csv" 4096 "$source_dir/data"
run fuzz_model_file "$build/corpus/model_file" 200000 "$source_dir/tests/data/models_ed836a3" \
  "$source_dir/tests/fuzz/binary_seeds"
