#!/usr/bin/env bash
# Two builds of tessel timed in one device call, alternately, so that a change is compared with
# the build before it under the same clocks (docs/performance.md, "Method": a baseline is timed
# in the same call, never taken from another day).
#
#   scripts/ab_bench.sh OLD_TESSEL NEW_TESSEL ROUNDS OUT_DIR -- BENCH_ARGS...
#
# e.g. scripts/ab_bench.sh old/tessel new/tessel 3 ab -- gemm --size 4096 --repeats 20
# runs `tessel bench BENCH_ARGS --json` ROUNDS times with each binary (old, new, new, old, ...:
# the order alternates so that drift falls on both) and writes OUT_DIR/old-R.json and
# OUT_DIR/new-R.json; scripts/perf_tables.py OUT_DIR/old-*.json OUT_DIR/new-*.json prints them
# side by side. Each run has 300 s. Exit status: 0 when every run finished, 1 otherwise, 2 for
# bad arguments (one error: line).
set -uo pipefail
fail() { echo "error: $1" >&2; exit 2; }
[ $# -ge 5 ] || fail "usage: scripts/ab_bench.sh OLD_TESSEL NEW_TESSEL ROUNDS OUT_DIR -- BENCH_ARGS..."
old=$1 new=$2 rounds=$3 out=$4
shift 4
[ "$1" = "--" ] || fail "expected -- before the bench arguments, got '$1'"
shift
[ $# -ge 1 ] || fail "no bench arguments after --"
for b in "$old" "$new"; do
  [ -x "$b" ] || fail "not an executable: $b"
done
case $rounds in
  '' | *[!0-9]* | 0) fail "ROUNDS must be a positive integer, got '$rounds'" ;;
esac
mkdir -p "$out" || fail "cannot create $out"
export TESSEL_REQUIRE_GPU=1
status=0
run() { # NAME BINARY ROUND
  local t0=$SECONDS
  timeout 300 "$2" bench "${bench_args[@]}" --json >"$out/$1-$3.json" 2>"$out/$1-$3.log"
  local rc=$?
  [ "$rc" -eq 0 ] || status=1
  echo "$1 round $3: exit $rc after $((SECONDS - t0)) s"
}
bench_args=("$@")
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then
    run old "$old" "$r"; run new "$new" "$r"
  else
    run new "$new" "$r"; run old "$old" "$r"
  fi
done
exit "$status"
