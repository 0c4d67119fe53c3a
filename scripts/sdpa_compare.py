#!/usr/bin/env python3
"""tessel's attention forward kernel next to PyTorch's scaled_dot_product_attention.

Two jobs, run in the same device call as `tessel bench attention`:

1. Timing. For every shape of `tessel bench attention --json` (run here with `--tessel BIN`, or
   read from `--tessel-json FILE`), time SDPA's cuDNN and flash backends on the same shape
   (batch, heads, seqlen, head dim, dtype, causal; random inputs of the same size), with CUDA
   events (median of --repeats after 3 warm-ups), and print TFLOP/s (4 B H S^2 D, halved when
   causal) and tessel's ratio to each backend and to the best one.

2. Agreement. For every shape directory written by `tessel bench attention --dump DIR`
   (`index.json`, `q.bin`, `k.bin`, `v.bin`, `o.bin`, `lse.bin`; (batch, seq, heads, dim)
   contiguous 16-bit inputs, fp32 LSE (batch, heads, seq)), recompute O and the LSE from the same
   Q, K, V in fp32 on the GPU, run SDPA's backends on the same inputs in their 16-bit type, and
   report the largest |error| of tessel's O and LSE and of each SDPA backend's O against the fp32
   result. The check fails (exit 1) when tessel's O error exceeds 2x the worst backend's plus one
   unit roundoff of the type, or its LSE error exceeds 1e-3 (1 + |LSE|).

Usage (one device call):
  tessel bench attention --seqlen 1024 --head-dim 64,128,256 --dump /tmp/attn_dump --repeats 3
  python3 scripts/sdpa_compare.py --dump /tmp/attn_dump
  python3 scripts/sdpa_compare.py --tessel target/release/tessel -- --seqlen 512,1024,2048,4096,8192,16384

Needs PyTorch >= 2.5 with CUDA (torch.nn.attention.sdpa_kernel, SDPBackend.CUDNN_ATTENTION).
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}
UNIT = {"f16": 2.0**-11, "bf16": 2.0**-8}
BACKENDS = [("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)]


def flops(batch, heads, seqlen, head_dim, causal):
    f = 4.0 * batch * heads * seqlen * seqlen * head_dim
    return f / 2 if causal else f


def sdpa(q, k, v, causal, scale, backend):
    """SDPA on (batch, seq, heads, dim) tensors through one backend; (batch, seq, heads, dim)."""
    with sdpa_kernel([backend]):
        o = F.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=causal, scale=scale
        )
    return o.transpose(1, 2)


def time_backend(q, k, v, causal, scale, backend, repeats):
    """Median ms of `repeats` SDPA calls after 3 warm-ups, or None when the backend refuses."""
    try:
        for _ in range(3):
            sdpa(q, k, v, causal, scale, backend)
        torch.cuda.synchronize()
    except RuntimeError as e:
        print(f"  {backend}: unavailable ({str(e).splitlines()[0][:120]})", file=sys.stderr)
        return None
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        sdpa(q, k, v, causal, scale, backend)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def timing(results, repeats):
    header = (
        f"{'kernel':<46} {'B':>3} {'S':>6} {'H':>4} {'tessel':>8} {'cudnn':>8} {'flash':>8} "
        f"{'x cudnn':>8} {'x flash':>8} {'x best':>7}"
    )
    print(f"device: {torch.cuda.get_device_name()} (torch {torch.__version__})")
    print("TFLOP/s (4 B H S^2 D, halved when causal)")
    print(header)
    rows = []
    for r in results:
        b, h, s, d, causal = r["batch"], r["heads"], r["seqlen"], r["head_dim"], r["causal"]
        dtype = DTYPES[r["dtype"]]
        scale = 1.0 / math.sqrt(d)
        q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=dtype) for _ in range(3))
        f = flops(b, h, s, d, causal)
        ours = r["tflops"]
        theirs = {}
        for name, backend in BACKENDS:
            ms = time_backend(q, k, v, causal, scale, backend, repeats)
            theirs[name] = None if ms is None else f / (ms * 1e-3) / 1e12
        del q, k, v
        torch.cuda.empty_cache()
        best = max((t for t in theirs.values() if t), default=None)

        def fmt(x, spec):
            return format(x, spec) if x else f"{'-':>{spec.split('.')[0]}}"

        ratio = {n: (ours / t if t else None) for n, t in theirs.items()}
        print(
            f"{r['kernel']:<46} {b:>3} {s:>6} {h:>4} {ours:>8.1f} {fmt(theirs['cudnn'], '8.1f')} "
            f"{fmt(theirs['flash'], '8.1f')} {fmt(ratio['cudnn'], '8.3f')} "
            f"{fmt(ratio['flash'], '8.3f')} {fmt(ours / best if best else None, '7.3f')}"
        )
        rows.append({**r, "cudnn_tflops": theirs["cudnn"], "flash_tflops": theirs["flash"],
                     "ratio_to_best": ours / best if best else None})
    return rows


def load16(path, shape, dtype):
    with open(path, "rb") as f:
        data = bytearray(f.read())
    return torch.frombuffer(data, dtype=dtype).reshape(shape).cuda()


def reference(q, k, v, causal, scale):
    """fp32 O (batch, seq, heads, dim) and LSE (batch, heads, seq), one sequence at a time."""
    os_, lses = [], []
    for i in range(q.shape[0]):
        qi, ki, vi = (x[i].float().transpose(0, 1) for x in (q, k, v))  # (heads, seq, dim)
        s = torch.matmul(qi, ki.transpose(1, 2)) * scale
        if causal:
            sq, sk = s.shape[1], s.shape[2]
            # Bottom-right aligned (equal to PyTorch's is_causal when sq == sk).
            keep = torch.ones(sq, sk, device=s.device, dtype=torch.bool).tril(sk - sq)
            s = s.masked_fill(~keep, float("-inf"))
        lse = torch.logsumexp(s, dim=-1)
        o = torch.matmul(torch.softmax(s, dim=-1), vi)
        os_.append(o.transpose(0, 1))
        lses.append(lse)
    return torch.stack(os_), torch.stack(lses)


def agreement(root):
    ok = True
    dirs = sorted(d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "index.json")))
    if not dirs:
        print(f"--dump {root}: no shape directories (index.json) found", file=sys.stderr)
        return False
    print(f"{'shape':<70} {'tessel O':>9} {'cudnn O':>9} {'flash O':>9} {'tessel LSE':>10}  verdict")
    for d in dirs:
        path = os.path.join(root, d)
        with open(os.path.join(path, "index.json")) as f:
            ix = json.load(f)
        dtype = DTYPES[ix["dtype"]]
        b, sq, sk, h, hk, hd = (ix[x] for x in ("batch", "seqlen_q", "seqlen_k", "heads", "kv_heads", "head_dim"))
        q = load16(os.path.join(path, "q.bin"), (b, sq, h, hd), dtype)
        k = load16(os.path.join(path, "k.bin"), (b, sk, hk, hd), dtype)
        v = load16(os.path.join(path, "v.bin"), (b, sk, hk, hd), dtype)
        o = load16(os.path.join(path, "o.bin"), (b, sq, h, hd), dtype).float()
        with open(os.path.join(path, "lse.bin"), "rb") as f:
            lse = torch.frombuffer(bytearray(f.read()), dtype=torch.float32).reshape(b, h, sq).cuda()
        if hk != h:
            k = k.repeat_interleave(h // hk, dim=2)
            v = v.repeat_interleave(h // hk, dim=2)
        scale = ix["scale"]
        causal = ix["causal"]
        ref_o, ref_lse = reference(q, k, v, causal, scale)
        err_o = (o - ref_o).abs().max().item()
        finite = torch.isfinite(ref_lse)
        err_lse = ((lse - ref_lse).abs()[finite] / (1 + ref_lse.abs()[finite])).max().item()
        theirs = {}
        for name, backend in BACKENDS:
            theirs[name] = None
            if causal and sq != sk:
                continue  # SDPA's is_causal is top-left aligned; tessel's (FlashAttention's) bottom-right
            try:
                theirs[name] = (sdpa(q, k, v, causal, scale, backend).float() - ref_o).abs().max().item()
            except RuntimeError:
                pass
        worst = max((e for e in theirs.values() if e is not None), default=UNIT[ix["dtype"]])
        good = err_o <= 2 * worst + UNIT[ix["dtype"]] and err_lse <= 1e-3 and not math.isnan(err_o)
        ok &= good

        def fmt(x):
            return f"{x:9.2e}" if x is not None else f"{'-':>9}"

        print(f"{d:<70} {err_o:9.2e} {fmt(theirs['cudnn'])} {fmt(theirs['flash'])} {err_lse:10.2e}  "
              f"{'ok' if good else 'FAIL'}")
        del q, k, v, o, lse, ref_o, ref_lse
        torch.cuda.empty_cache()
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tessel", help="the tessel binary: runs `tessel bench attention --json ARGS` first")
    ap.add_argument("--tessel-json", help="the output of `tessel bench attention --json`")
    ap.add_argument("--dump", help="a directory written by `tessel bench attention --dump`")
    ap.add_argument("--repeats", type=int, default=30, help="timed SDPA calls per backend")
    ap.add_argument("--json-out", help="write the timing rows (with SDPA's TFLOP/s) here")
    ap.add_argument("tessel_args", nargs="*", help="after --: arguments of `tessel bench attention`")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("error: PyTorch sees no CUDA device", file=sys.stderr)
        return 2
    ok = True
    if args.dump:
        ok &= agreement(args.dump)
    results = None
    if args.tessel:
        cmd = [args.tessel, "bench", "attention", "--json", *args.tessel_args]
        print("running:", " ".join(cmd), file=sys.stderr)
        out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
        results = json.loads(out)
    elif args.tessel_json:
        with open(args.tessel_json) as f:
            results = json.load(f)
    if results is not None:
        if results.get("skipped"):
            print(f"error: tessel skipped: {results['skipped']}", file=sys.stderr)
            return 2
        rows = timing(results["results"], args.repeats)
        if args.json_out:
            with open(args.json_out, "w") as f:
                json.dump({"device": torch.cuda.get_device_name(), "rows": rows}, f)
    elif not args.dump:
        ap.error("give --tessel BIN, --tessel-json FILE or --dump DIR")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
