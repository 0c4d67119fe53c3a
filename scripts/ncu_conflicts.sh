#!/usr/bin/env bash
# Nsight Compute vs. the bank model: measured shared-memory wavefronts of tessel's shared-memory
# kernels next to the predictions computed from the same layouts.
#
# usage: scripts/ncu_conflicts.sh [SIZE]        copy, transposes and microkernels (`bench all`;
#                                                 the pattern microkernels of
#                                                 tessel_kernels::micro::PATTERNS included)
#        scripts/ncu_conflicts.sh mma [PROBLEMS] the tensor-core swizzle kernels (`bench mma`,
#                                                 PROBLEMS blocks per launch, default 4096)
#        scripts/ncu_conflicts.sh sgemm [N]     the SIMT SGEMM ladder (`bench sgemm`, N^3, default
#                                                 1024; every rung launched once, verified)
#   TESSEL_BENCH  command that runs `tessel bench` (default: "target/release/tessel bench")
#   TESSEL        the tessel binary for `tessel conflicts` predictions (default: target/release/tessel)
#   NCU           the ncu binary (default: ncu)
#   OUTDIR        where the raw ncu CSV and logs go (default: a temporary folder)
#
# For each dtype it runs `tessel bench all --profile` (`bench mma --profile` once, fp16) (every kernel launched once, verified,
# untimed) under `ncu --clock-control none`, reads
#   smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum / ..._op_st.sum (LDS / STS)
#   sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum / ..._op_stsm.sum (ldmatrix / stmatrix)
# and prints measured, ideal and excess (measured - ideal; docs/bank-model.md) beside the prediction
# `tessel bench --profile` computes from the kernel's layouts with the bank model. When the
# `tessel conflicts` subcommand is available it also prints its per-instruction prediction for
# the microkernels' read instruction.
set -euo pipefail

SUITE=all
if [ "${1:-}" = mma ] || [ "${1:-}" = sgemm ]; then
  SUITE=$1
  shift
fi
if [ "$SUITE" = sgemm ]; then
  # One pass: the ladder is fp32 only.
  SIZE=${1:-1024}
  DTYPES=(f32)
  KERNELS='regex:^sgemm_'
elif [ "$SUITE" = mma ]; then
  SIZE=${1:-4096}
  DTYPES=(f16)
  KERNELS='regex:^mma_'
else
  SIZE=${1:-1024}
  DTYPES=(f32 f16)
  KERNELS='regex:^(copy|transpose|conflict)'
fi
# The command and its leading arguments, split on white space into an array (no globbing).
read -r -a BENCH <<<"${TESSEL_BENCH:-target/release/tessel bench}"
TESSEL=${TESSEL:-target/release/tessel}
NCU=${NCU:-ncu}
OUTDIR=${OUTDIR:-$(mktemp -d)}
mkdir -p "$OUTDIR"
# LDS and STS count under op_ld / op_st; ldmatrix and stmatrix under their own op_ldsm / op_stsm
# (read at the SM level, sm__sass_..., as `ncu --query-metrics` lists them on the H100); a
# kernel's loads are op_ld + op_ldsm and
# its stores op_st + op_stsm, which is what the bank model predicts.
METRICS=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum,sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum

if ! command -v "$NCU" >/dev/null 2>&1; then
  echo "ncu not found (set NCU=/path/to/ncu); nothing measured"
  exit 0
fi

# Under `set -e` a failing step would end the script silently (its stderr goes to a file).
failed() {
  echo "$1 failed; its log ($2):" >&2
  tail -n 20 "$2" >&2
  exit 1
}

for dtype in "${DTYPES[@]}"; do
  # `bench mma` and `bench sgemm` have one element type and refuse --dtype.
  DTYPE_ARGS=()
  [ "$SUITE" = all ] && DTYPE_ARGS=(--dtype "$dtype")
  # Predictions (bank model over the kernels' own layouts); no profiler attached.
  "${BENCH[@]}" "$SUITE" --profile --size "$SIZE" "${DTYPE_ARGS[@]}" \
    >"$OUTDIR/bench_$dtype.out" 2>"$OUTDIR/predict_$dtype.txt" ||
    failed "tessel bench ($dtype)" "$OUTDIR/predict_$dtype.txt"
  # Measurement.
  "$NCU" --clock-control none --metrics "$METRICS" -k "$KERNELS" \
    --csv --page raw "${BENCH[@]}" "$SUITE" --profile --size "$SIZE" "${DTYPE_ARGS[@]}" \
    >"$OUTDIR/ncu_$dtype.csv" 2>"$OUTDIR/ncu_$dtype.err" ||
    failed "ncu ($dtype)" "$OUTDIR/ncu_$dtype.err"
done

python3 - "$OUTDIR" "${DTYPES[@]}" <<'PY'
import csv, io, re, sys, os
out = sys.argv[1]
dtypes = sys.argv[2:]
pred = {}
for dtype in dtypes:
    for line in open(os.path.join(out, f"predict_{dtype}.txt")):
        m = re.match(r"predict (\S+) ld=(\d+) ld_ideal=(\d+) st=(\d+) st_ideal=(\d+)", line)
        if m:
            pred[m.group(1)] = tuple(int(x) for x in m.groups()[1:])
meas = {}
for dtype in dtypes:
    text = open(os.path.join(out, f"ncu_{dtype}.csv")).read()
    start = text.find('"ID"')
    if start < 0:
        continue
    rows = list(csv.reader(io.StringIO(text[start:])))
    head = rows[0]
    k = head.index("Kernel Name")
    col = lambda name: head.index(name) if name in head else None
    prefix = "__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_"
    loads = [c for c in (col("smsp" + prefix + "ld.sum"), col("sm" + prefix + "ldsm.sum")) if c is not None]
    stores = [c for c in (col("smsp" + prefix + "st.sum"), col("sm" + prefix + "stsm.sum")) if c is not None]
    num = lambda s: int(float(s.replace(",", ""))) if s.strip() not in ("", "n/a") else 0
    for r in rows[2:]:
        if len(r) > max([k] + loads + stores):
            meas.setdefault(r[k], (sum(num(r[c]) for c in loads), sum(num(r[c]) for c in stores)))
fmt = "{:<30} {:>10} {:>10} {:>8} {:>10} {:>10} {:>8} {:>9}"
print(fmt.format("kernel", "ld_meas", "ld_pred", "ld_exc", "st_meas", "st_pred", "st_exc", "agree"))
for name, (pld, pldi, pst, psti) in pred.items():
    if name not in meas:
        print(f"{name:<30} (not measured)")
        continue
    mld, mst = meas[name]
    exc_ld, exc_st = mld - pldi, mst - psti
    agree = "yes" if (exc_ld, exc_st) == (pld - pldi, pst - psti) else "NO"
    print(fmt.format(name, mld, pld, exc_ld, mst, pst, exc_st, agree))
print("(excess = measured - ideal; pred = bank-model wavefronts from the kernel's layouts;")
print(" agree = measured excess equals predicted excess for loads and stores)")
PY

# Per-instruction predictions of the standalone `tessel conflicts` subcommand, if present.
if [ "$SUITE" = sgemm ]; then
  echo "(sgemm: cp.async writes to shared memory (LDGSTS) are not LSU stores: a rung filled by"
  echo " cp.async measures st_meas 0 where the model predicts the stores of the same addresses)"
fi
if [ "$SUITE" = mma ] || [ "$SUITE" = sgemm ]; then
  echo "raw ncu output: $OUTDIR"
  exit 0
fi
if "$TESSEL" conflicts --help >/dev/null 2>&1; then
  echo
  echo "tessel conflicts (one warp-wide read instruction of each microkernel):"
  for spec in "conflict_column_f32|(32,32):(32,1)|lds.32|(32,1):(1,0)" \
              "conflict_column_padded_f32|(32,32):(33,1)|lds.32|(32,1):(1,0)" \
              "conflict_column_swizzled_f32|Sw<5,0,5> o (32,32):(32,1)|lds.32|(32,1):(1,0)" \
              "conflict_vec128_f32|(32,32):(32,1)|lds.128|((8,4),4):((128,1),32)" \
              "conflict_vec128_strided_f32|(32,32):(32,1)|lds.128|(32,4):(1,32)"; do
    IFS='|' read -r name smem op tv <<<"$spec"
    printf '%-30s %s\n' "$name" "$("$TESSEL" conflicts --smem "$smem" --elem-bytes 4 --op "$op" --access "$tv" --json 2>&1)"
  done
else
  echo
  echo "note: \`tessel conflicts\` is not available in this build; the predictions above come"
  echo "from the bank model (tessel_layout::bank) over the kernels' layouts."
fi
echo "raw ncu output: $OUTDIR"
