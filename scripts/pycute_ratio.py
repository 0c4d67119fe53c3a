#!/usr/bin/env python3
"""Compare tessel's host algebra speed (criterion) with pycute on the same inputs.

Reads the median of every case of `cargo bench -p tessel-layout --bench algebra` from
target/criterion/<group>/<function>/<baseline>/estimates.json, times the same operation on the
same inputs in pycute with timeit (best of several repeats), checks that pycute's answer is the
layout the benchmark checks tessel's answer against (so both time the same operation), and
prints operation, input, tessel ns, pycute ns and their ratio.

pycute is CUTLASS's Python model of CuTe: `python/pycute` in the CUTLASS repository
(https://github.com/NVIDIA/cutlass), also shipped in the `nvidia-cutlass` pip wheel. The PyPI
package named `pycute` is unrelated. Put the directory that contains the `pycute` package on
PYTHONPATH, e.g. `PYTHONPATH=$CUTLASS/python python3 scripts/pycute_ratio.py`.

Exit status: 0 on success; 1 when pycute's answer differs from the expected layout; 2 (one
`error:` line on stderr) when pycute cannot be imported or criterion's output is missing.
Standard library only (plus pycute).
"""

import argparse
import json
import os
import sys
import timeit

# (group, function, input shown in the table, pycute call as text, expected answer in CuTe
# notation). The group/function names and the expected strings are those of
# layout/benches/algebra.rs, which asserts that tessel gives the same answers.
CASES = [
    ("composition", "docs_2x2", "(6,2):(8,2) o (4,3):(3,1)",
     "composition(L((6, 2), (8, 2)), L((4, 3), (3, 1)))", "((2,2),3):((24,2),8)"),
    ("composition", "docs_20_2", "20:2 o (5,4):(4,1)",
     "composition(L(20, 2), L((5, 4), (4, 1)))", "(5,4):(8,2)"),
    ("composition", "tile_128x64_rowmajor", "(128,64):(64,1) o ((8,16),(8,8)):((1,64),(8,512))",
     "composition(L((128, 64), (64, 1)), L(((8, 16), (8, 8)), ((1, 64), (8, 512))))",
     "((8,(2,8)),(8,8)):((64,(4096,1)),(512,4))"),
    ("composition", "tv_sm80_c", "(16,8):(1,16) o ((4,8),(2,2)):((32,1),(16,8))",
     "composition(L((16, 8), (1, 16)), L(((4, 8), (2, 2)), ((32, 1), (16, 8))))",
     "((4,8),(2,2)):((32,1),(16,8))"),
    ("complement", "docs_4_2", "complement(4:2, 24)",
     "complement(L(4, 2), 24)", "(2,3):(1,8)"),
    ("complement", "docs_2x2", "complement((2,2):(1,6), 24)",
     "complement(L((2, 2), (1, 6)), 24)", "(3,2):(2,12)"),
    ("complement", "deep", "complement(((2,2),(4,2),2):((1,64),(2,512),4096), 2^16)",
     "complement(L(((2, 2), (4, 2), 2), ((1, 64), (2, 512), 4096)), 1 << 16)",
     "(8,4,4,8):(8,128,1024,8192)"),
    ("logical_divide", "docs_1d", "(4,2,3):(2,1,8) / 4:2",
     "logical_divide(L((4, 2, 3), (2, 1, 8)), L(4, 2))", "((2,2),(2,3)):((4,1),(2,8))"),
    ("logical_divide", "docs_2d", "(9,(4,8)):(59,(13,1)) / <3:3, (2,4):(1,8)>",
     "logical_divide(L((9, (4, 8)), (59, (13, 1))), (L(3, 3), L((2, 4), (1, 8))))",
     "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))"),
    ("logical_divide", "gemm_tile_128x64", "(4096,4096):(4096,1) / <128:1, 64:1>",
     "logical_divide(L((4096, 4096), (4096, 1)), (L(128, 1), L(64, 1)))",
     "((128,32),(64,64)):((4096,524288),(1,64))"),
    ("logical_product", "docs_1d", "(2,2):(4,1) x 6:1",
     "logical_product(L((2, 2), (4, 1)), L(6, 1))", "((2,2),(2,3)):((4,1),(2,8))"),
    ("logical_product", "docs_2d", "(2,5):(5,1) x (3,4):(1,3)",
     "logical_product(L((2, 5), (5, 1)), L((3, 4), (1, 3)))",
     "((2,5),(3,4)):((5,1),(10,30))"),
    ("zipped_product", "tile_by_mode", "(2,2):(1,2) x <3:1, 2:1>",
     "zipped_product(L((2, 2), (1, 2)), (L(3, 1), L(2, 1)))", "((2,2),(3,2)):((1,2),(2,1))"),
    # pycute has no blocked or raked product: tessel's time only.
    ("blocked_product", "docs_2d", "(2,5):(5,1) blocked (3,4):(1,3)",
     None, "((2,3),(5,4)):((5,10),(1,30))"),
    ("raked_product", "docs_2d", "(2,5):(5,1) raked (3,4):(1,3)",
     None, "((3,2),(4,5)):((10,5),(30,1))"),
    ("right_inverse", "semantics", "(2,4,6):(4,1,8)",
     "right_inverse(L((2, 4, 6), (4, 1, 8)))", "(4,2,6):(2,1,8)"),
    ("right_inverse", "rowmajor_4x8", "(4,8):(8,1)",
     "right_inverse(L((4, 8), (8, 1)))", "(8,4):(4,1)"),
    ("right_inverse", "tv_sm80_c", "((4,8),(2,2)):((32,1),(16,8))",
     "right_inverse(L(((4, 8), (2, 2)), ((32, 1), (16, 8))))", "(8,2,2,4):(4,64,32,1)"),
    ("left_inverse", "semantics", "(2,4,6):(4,1,8)",
     "left_inverse(L((2, 4, 6), (4, 1, 8)))", "(4,2,6):(2,1,8)"),
    ("left_inverse", "rowmajor_4x8", "(4,8):(8,1)",
     "left_inverse(L((4, 8), (8, 1)))", "(8,4):(4,1)"),
    ("left_inverse", "tv_sm80_c", "((4,8),(2,2)):((32,1),(16,8))",
     "left_inverse(L(((4, 8), (2, 2)), ((32, 1), (16, 8))))", "(8,2,2,4):(4,64,32,1)"),
    ("coalesce", "docs", "(2,(1,6)):(1,(6,2))",
     "coalesce(L((2, (1, 6)), (1, (6, 2))))", "12:1"),
    ("coalesce", "rowmajor_4x3", "(4,3):(3,1)",
     "coalesce(L((4, 3), (3, 1)))", "(4,3):(3,1)"),
    ("coalesce", "tile_8192", "((8,16),(8,8)):((1,8),(128,1024))",
     "coalesce(L(((8, 16), (8, 8)), ((1, 8), (128, 1024))))", "8192:1"),
    # The layout is built once (setup); only the evaluation at one index is timed.
    ("evaluation", "offset_rank2", "(4,8):(8,1) at index 5",
     ("L((4, 8), (8, 1))", "x(5)"), "9"),
    ("evaluation", "offset_rank2_nested", "((4,8),(2,2)):((32,1),(16,8)) at index 37",
     ("L(((4, 8), (2, 2)), ((32, 1), (16, 8)))", "x(37)"), "49"),
]


def fail(message, status=2):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(status)


def cute(value):
    """CuTe notation of a pycute value: `(4,(2,3)):(1,(4,8))`, an integer as itself."""
    if isinstance(value, tuple):
        return "(" + ",".join(cute(v) for v in value) + ")"
    if hasattr(value, "shape") and hasattr(value, "stride"):
        return f"{cute(value.shape)}:{cute(value.stride)}"
    return str(value)


def criterion_median_ns(root, baseline, group, function):
    path = os.path.join(root, group, function, baseline, "estimates.json")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)["median"]["point_estimate"], path
    except (OSError, KeyError, ValueError):
        return None, path


def time_pycute(namespace, call, repeat):
    """Best time per call in ns over `repeat` runs of timeit's automatic loop count, and the
    call's result. `call` is a statement, or `(value of x, statement)` to time `x` only."""
    setup, stmt = ("x = " + call[0], call[1]) if isinstance(call, tuple) else ("pass", call)
    scope = dict(namespace)
    exec(setup, scope)
    result = eval(stmt, scope)
    timer = timeit.Timer(stmt, setup=setup, globals=scope)
    number, _ = timer.autorange()
    best = min(timer.repeat(repeat=repeat, number=number))
    return best / number * 1e9, result


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="pycute comes from CUTLASS (python/pycute, or the nvidia-cutlass wheel); the "
        "PyPI package named 'pycute' is unrelated. Run `cargo bench -p tessel-layout --bench "
        "algebra` first.",
    )
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--criterion-dir", default=os.path.join(repo, "target", "criterion"),
                        help="criterion's output directory (default: target/criterion)")
    parser.add_argument("--baseline", default="new",
                        help="criterion baseline to read (default: new, the last run)")
    parser.add_argument("--repeat", type=int, default=7,
                        help="timeit repeats per case; the best is kept (default: 7)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()

    try:
        import pycute
    except ImportError as e:
        fail(f"pycute is not importable ({e}); put CUTLASS's python/ directory on PYTHONPATH "
             "(the PyPI package 'pycute' is a different project)")
    if not hasattr(pycute, "composition") or not hasattr(pycute, "Layout"):
        fail("the importable 'pycute' is not CUTLASS's pycute (no Layout/composition); put "
             "CUTLASS's python/ directory on PYTHONPATH")

    namespace = {name: getattr(pycute, name) for name in dir(pycute)}
    namespace["L"] = pycute.Layout

    rows = []
    mismatches = []
    for group, function, shown, call, expected in CASES:
        tessel_ns, path = criterion_median_ns(args.criterion_dir, args.baseline, group, function)
        if tessel_ns is None:
            fail(f"criterion output {path} is missing or unreadable; run `cargo bench -p "
                 "tessel-layout --bench algebra` first")
        row = {"operation": f"{group}/{function}", "input": shown, "expected": expected,
               "tessel_ns": tessel_ns, "pycute_ns": None, "ratio": None, "pycute_result": None}
        if call is not None:
            pycute_ns, result = time_pycute(namespace, call, args.repeat)
            row["pycute_ns"] = pycute_ns
            row["ratio"] = pycute_ns / tessel_ns
            row["pycute_result"] = cute(result)
            if row["pycute_result"] != expected:
                mismatches.append(row)
        rows.append(row)

    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        header = ("operation", "input", "tessel ns", "pycute ns", "ratio")
        lines = [header]
        for r in rows:
            lines.append((
                r["operation"], r["input"], f"{r['tessel_ns']:.1f}",
                "n/a" if r["pycute_ns"] is None else f"{r['pycute_ns']:.0f}",
                "n/a" if r["ratio"] is None else f"{r['ratio']:.0f}x",
            ))
        widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
        for line in lines:
            print("  ".join(cell.ljust(w) if i < 2 else cell.rjust(w)
                            for i, (cell, w) in enumerate(zip(line, widths))))
        ratios = [r["ratio"] for r in rows if r["ratio"] is not None]
        print(f"smallest ratio: {min(ratios):.0f}x over {len(ratios)} cases with a pycute "
              "equivalent")
    for r in mismatches:
        print(f"error: pycute's {r['operation']} gave {r['pycute_result']}, expected "
              f"{r['expected']}", file=sys.stderr)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
