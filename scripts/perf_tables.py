#!/usr/bin/env python3
"""Markdown tables of docs/performance.md from `tessel bench SUITE --json` outputs.

    python3 scripts/perf_tables.py RUN.json [RUN.json ...]

Each file holds the one line of JSON a `tessel bench ... --json` run prints (docs/cli.md gives
the schema). Results of the same kernel and size from several files (repeated runs) are listed
side by side, in file order ("a / b" in a cell), so a table shows the spread of the runs as
well as their level.
Prints one table per kernel family: copy and transposes (x memcpy), bank-conflict
microkernels (wavefronts), GEMMs (x cuBLAS), the library GEMM's shapes (x cuBLAS, one column
per type pair and orders), the SGEMM ladder (x cuBLAS SGEMM).
"""

import json
import math
import re
import sys
from collections import OrderedDict


def load(paths):
    device, runs = None, []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            data = json.loads(f.read())
        if data.get("skipped"):
            sys.exit(f"error: {path}: the run was skipped: {data['skipped']}")
        device = device or data.get("device")
        runs.append(data["results"])
    return device, runs


def collect(runs, key, value, keep):
    """OrderedDict key -> list of values over the runs (None where a run lacks it)."""
    rows = OrderedDict()
    for i, results in enumerate(runs):
        for r in results:
            if not keep(r):
                continue
            rows.setdefault(key(r), [None] * len(runs))[i] = value(r)
    return rows


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}f}"


def joined(vals):
    """The runs' values of one cell, in file order: "a / b"."""
    return " / ".join(fmt(v) for v in vals if v is not None) or "-"


def table(title, header, rows):
    out = [f"**{title}**", "", "| " + " | ".join(header) + " |"]
    out.append("|" + "---|" * len(header))
    for cells in rows:
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def is_library(r):
    """A row of the library GEMM (`bench gemm --shapes`): its config is `IN->OUT ORDERS`."""
    return "->" in r.get("config", "") and " " in r.get("config", "")


def library_table(runs):
    """One row per shape of the library's runs, one column per type pair and orders; a cell is
    the range of the runs' ratios to cuBLAS. The tile comes from the kernel's name, the split
    from `splits` (runs before it was reported leave it out). Then each run's geometric mean."""
    rows = OrderedDict()
    configs = list(OrderedDict.fromkeys(
        r["config"] for run in runs for r in run if is_library(r)))
    if not configs:
        return
    for run in runs:
        for r in run:
            if not is_library(r):
                continue
            shape = (r["m"], r["n"], r["k"])
            cell = rows.setdefault(shape, {"tiles": OrderedDict(), "ratios": {}})
            tile = re.search(r"_(\d+x\d+)_", r["kernel"])
            tile = tile.group(1) if tile else r["kernel"]
            if "splits" in r:
                tile += f", {r['splits']}"
            cell["tiles"][tile] = None
            cell["ratios"].setdefault(r["config"], []).append(r["ratio_to_cublas"])
    out = []
    for (m, n, k), cell in rows.items():
        cells = []
        for c in configs:
            v = cell["ratios"].get(c, [])
            cells.append("-" if not v else fmt(v[0], 3) if len(v) == 1
                         else f"{min(v):.2f}-{max(v):.2f}")
        out.append([f"{m}x{n}x{k}", " / ".join(cell["tiles"])] + cells)
    print(table("The library GEMM, x cuBLAS (range over the runs)",
                ["M x N x K", "tile, split"] + configs, out))
    for i, run in enumerate(runs):
        v = [r["ratio_to_cublas"] for r in run if is_library(r)]
        if v:
            g = math.exp(sum(math.log(x) for x in v) / len(v))
            print(f"run {i + 1}: {len(v)} rows, geometric mean {g:.3f}, "
                  f"{sum(x < 0.9 for x in v)} below 0.90\n")


def main():
    if len(sys.argv) < 2:
        sys.exit("error: give one or more `tessel bench --json` files")
    device, runs = load(sys.argv[1:])
    n = len(runs)
    print(f"Device: {device}; {n} run(s).\n")

    copies = collect(
        runs,
        lambda r: (r["kernel"], r["dtype"], r["rows"], r["cols"]),
        lambda r: r.get("ratio_to_memcpy"),
        lambda r: "kernel" in r and "dtype" in r and r.get("bytes", 0) > 0
        and r["kernel"] != "memcpy_dtod",
    )
    if copies:
        # One row per kernel, one column per type and size; repeated runs side by side.
        columns = sorted({(t, m, c) for (_, t, m, c) in copies}, key=lambda x: (x[0] != "f32", x[1]))
        kernels = list(OrderedDict.fromkeys(k.rsplit("_", 1)[0] for (k, _, _, _) in copies))
        rows = []
        for base in kernels:
            cells = []
            for (t, m, c) in columns:
                vals = copies.get((f"{base}_{t}", t, m, c), [])
                cells.append(joined(vals))
            rows.append([base] + cells)
        print(table(
            "Copy and transposes, bandwidth x cudaMemcpy (device to device)",
            ["kernel"] + [f"{t} {m}x{c}" for (t, m, c) in columns],
            rows,
        ))

    micro = collect(
        runs,
        lambda r: r["kernel"],
        lambda r: r.get("predicted_wavefronts"),
        lambda r: "kernel" in r and "dtype" in r and r.get("bytes", 1) == 0,
    )
    if micro:
        rows = []
        for k, vals in micro.items():
            p = next((v for v in vals if v), None)
            rows.append([k, "-" if not p else f"{p['ld']}/{p['st']}",
                         "-" if not p else f"{p['ld_ideal']}/{p['st_ideal']}"])
        print(table("Bank-conflict microkernels, predicted wavefronts (loads/stores)",
                    ["kernel", "wavefronts", "ideal"], rows))

    gemms = collect(
        runs,
        lambda r: (r["kernel"], r["config"], r["m"], r["n"], r["k"]),
        lambda r: r["ratio_to_cublas"],
        lambda r: "config" in r and not is_library(r),
    )
    if gemms:
        tflops = collect(
            runs,
            lambda r: (r["kernel"], r["config"], r["m"], r["n"], r["k"]),
            lambda r: (r["tflops"], r["cublas_tflops"]),
            lambda r: "config" in r and not is_library(r),
        )
        rows = []
        for key, vals in gemms.items():
            k, c, m, nn, kk = key
            tf = next((t for t in tflops[key] if t), (None, None))
            rows.append([k, c, f"{m}x{nn}x{kk}", fmt(tf[0], 1), fmt(tf[1], 1), joined(vals)])
        print(table("GEMMs, x cuBLAS (same types, same process)",
                    ["kernel", "config", "M x N x K", "TFLOP/s", "cuBLAS TFLOP/s", "x cuBLAS"],
                    rows))

    library_table(runs)

    sgemm = collect(
        runs,
        lambda r: (r["rung"], r["m"], r["n"], r["k"]),
        lambda r: r.get("ratio_to_cublas"),
        lambda r: "rung" in r,
    )
    if sgemm:
        print(table("SGEMM ladder, x cuBLAS SGEMM (row-major A and B)",
                    ["rung", "M x N x K", "x cuBLAS"],
                    [[rung, f"{m}x{nn}x{k}", joined(vals)]
                     for (rung, m, nn, k), vals in sgemm.items()]))


if __name__ == "__main__":
    main()
