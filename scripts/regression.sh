#!/usr/bin/env bash
# The no-regression benchmarks of the kernels in one device call: `tessel bench all`, `bench
# gemm` (SM80 and Hopper, 4096^3 and 8192^3, the four type pairs), `bench mma` and `bench sgemm`
# (its three default shapes), each with --repeats 10 --json, one after the other on one GPU.
#
#   scripts/regression.sh [OUT_DIR]        (default: $OUT, else ./regression-out)
#
# TESSEL names the release binary (default target/release/tessel). Each suite writes
# OUT_DIR/SUITE.json (the rows scripts/perf_tables.py turns into the performance reference's
# tables) and its progress to OUT_DIR/SUITE.log; a suite that fails or passes its time limit is
# reported and the others still run. The limits (570 s in all) keep the whole inside the 600 s of
# one device call; on an H200 bench all, gemm and mma finished within 70, 130 and 40 s, and
# sgemm on its default shapes needed more than 90 s. Exit status: 0 when every suite finished,
# 1 otherwise, 2 without a binary.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-regression-out}}
tessel=${TESSEL:-target/release/tessel}
if [ ! -x "$tessel" ]; then
  echo "error: no tessel binary at $tessel (build it with cargo build --release -p tessel-cli, or set TESSEL)" >&2
  exit 2
fi
mkdir -p "$out"
export TESSEL_REQUIRE_GPU=1
start=$SECONDS
status=0
for suite in all:90 gemm:150 mma:60 sgemm:270; do
  name=${suite%%:*}
  limit=${suite##*:}
  t0=$SECONDS
  timeout "$limit" "$tessel" bench "$name" --repeats 10 --json >"$out/$name.json" 2>"$out/$name.log"
  rc=$?
  [ "$rc" -eq 0 ] || status=1
  echo "bench $name: exit $rc after $((SECONDS - t0)) s (limit $limit s)"
done
echo "total $((SECONDS - start)) s; JSON in $out"
exit "$status"
