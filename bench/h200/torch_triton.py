#!/usr/bin/env python3
"""Triton and torch on the H200 benchmark's sizes (the rk side is rk_bench.c); run by bench/h200/run.sh.

    python3 bench/h200/torch_triton.py [--tsv FILE] [--runs N] [--only NAME,...] [--small]

The same measurements as rk_bench, on the same sizes, checked and timed the same way:
  matmul     bf16 C = A B (f32 accumulation), 4096^3 and 8192^3; Triton: the tutorial's grouped kernel,
             autotuned over a few configs; torch: torch.matmul (cuBLAS)                       TFLOP/s
  softmax    f32 rows 16384 x 8192; Triton: one row per program; torch.softmax              GB/s
  layernorm  f32 rows 16384 x 8192 with weight and bias; Triton: one row per program;
             torch.nn.functional.layer_norm                                                  GB/s
  vecadd     f32 2^28 elements; Triton: the tutorial's add; torch.add; and copy_ of the
             same bytes                                                                      GB/s
  attention  forward, f16, Z=4 H=16 N_CTX=4096 D=64, not causal; Triton: a flash-attention
             kernel like the tutorial's; torch: scaled_dot_product_attention                TFLOP/s
  compile    cold compile of each kernel's autotune configs (bench_compile), median        ms
  launch     an empty Triton kernel launched 20000 times back to back: host microseconds per
             launch call (Python included, as a Triton user pays it) and GPU microseconds per launch
Each output is compared with a float64 reference (computed on the GPU with torch; for the 8192
matmul on 16 sampled rows) and its max relative error printed before it is timed:
max |out - ref| / max(|ref|, rms(ref)), as rk's examples measure it. Timing: CUDA events around each
run, 3 warm-up runs, the median of N >= 20 runs, the L2 flushed before each run (a 256 MiB zero_
outside the timed interval, as triton.testing.do_bench does). Results: stdout, and the TSV file that
bench/h200/table.py reads (bench impl size config ms value unit err tol status)."""
import argparse
import math
import sys
import time
import traceback

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

DEV = "cuda"
RUNS = 20
TSV = None
FLUSH = None
FAILURES = 0  # outputs that failed their check, and benchmarks that raised
# The sizes (rk_bench.c uses the same); --small shrinks them, to try the script out without a GPU.
SIZES = dict(matmul=(4096, 8192), rows=(16384, 8192), vecadd=1 << 28, attention=(4, 16, 4096, 64), launch=20000,
             flush=256 << 20)
SMALL = dict(matmul=(64, 128), rows=(8, 256), vecadd=1 << 12, attention=(1, 2, 64, 16), launch=10, flush=1 << 10)

# ---- Triton kernels ------------------------------------------------------------------------------


def matmul_configs():
    cfg = [(128, 256, 64, 3, 8), (256, 128, 64, 3, 8), (128, 128, 64, 4, 4), (128, 128, 32, 4, 4),
           (128, 256, 64, 4, 8)]
    return [triton.Config({"BLOCK_M": m, "BLOCK_N": n, "BLOCK_K": k, "GROUP_M": 8}, num_stages=s, num_warps=w)
            for m, n, k, s, w in cfg]


@triton.autotune(configs=matmul_configs(), key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, acc.to(tl.bfloat16), mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def warps_configs():
    return [triton.Config({}, num_warps=w) for w in (4, 8, 16)]


@triton.autotune(configs=warps_configs(), key=["n_cols"])
@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(y_ptr + row * n_cols + offs, num / tl.sum(num, axis=0), mask=mask)


@triton.autotune(configs=warps_configs(), key=["n_cols"])
@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(d * d, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + row * n_cols + offs, d * rstd * w + b, mask=mask)


@triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((1024, 4), (2048, 4), (4096, 8),
                                                                                (8192, 8))], key=["n"])
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.autotune(configs=[triton.Config({"BLOCK_M": m, "BLOCK_N": n}, num_stages=s, num_warps=w)
                          for m, n, s, w in ((128, 64, 3, 8), (128, 128, 3, 8), (64, 64, 4, 4), (128, 64, 4, 4))],
                 key=["N_CTX"])
@triton.jit
def attention_kernel(Q, K, V, O, sm_scale, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    base = tl.program_id(1).to(tl.int64) * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], mask=offs_m[:, None] < N_CTX, other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.44269504  # log2(e): exp2 does the exponentials
    for start_n in range(0, N_CTX, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(K + base + cols[None, :] * HEAD_DIM + offs_d[:, None], mask=cols[None, :] < N_CTX, other=0.0)
        qk = tl.dot(q, k) * qk_scale
        qk = tl.where(cols[None, :] < N_CTX, qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + base + cols[:, None] * HEAD_DIM + offs_d[None, :], mask=cols[:, None] < N_CTX, other=0.0)
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_new
    tl.store(O + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], (acc / l_i[:, None]).to(tl.float16),
             mask=offs_m[:, None] < N_CTX)


@triton.jit
def noop_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros([BLOCK], tl.float32), mask=offs < n)


# ---- measuring -----------------------------------------------------------------------------------


def timed(fn, runs=None):
    """Median milliseconds of `runs` runs of fn, each between two CUDA events, the L2 flushed before each."""
    runs = runs or RUNS
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    for i in range(runs):
        FLUSH.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    t = sorted(s.elapsed_time(e) for s, e in zip(starts, ends))
    return t[runs // 2] if runs % 2 else 0.5 * (t[runs // 2 - 1] + t[runs // 2])


def max_rel_err(out, ref):
    """max |out - ref| / max(|ref|, rms(ref)); NaN anywhere gives NaN."""
    out, ref = out.double(), ref.double()
    rms = ref.pow(2).mean().sqrt()
    e = (out - ref).abs() / torch.maximum(ref.abs(), rms)
    if torch.isnan(e).any():
        return math.nan
    return e.max().item()


def record(bench, impl, size, config, ms, value, unit, err, tol, status):
    if TSV:
        TSV.write(f"{bench}\t{impl}\t{size}\t{config}\t{ms:.6g}\t{value:.6g}\t{unit}\t{err:.3g}\t{tol:.3g}\t{status}\n")
        TSV.flush()


def measure(bench, impl, size, unit, work, fn, check, tol, config=lambda: ""):
    """Runs fn once, checks its output (check() gives the relative error), then times it."""
    global FAILURES
    try:
        fn()
        torch.cuda.synchronize()
        err = check()
        ok = err <= tol
        print(f"  {impl:7s} max rel err {err:.1e} (tol {tol:.0e}) {'ok' if ok else 'FAILED'}", end="", flush=True)
        if not ok:
            print()
            record(bench, impl, size, config(), 0, 0, unit, err, tol, "failed")
            FAILURES += 1
            return False
        ms = timed(fn)
        value = work / ms / 1e9 if unit == "TFLOP/s" else work / ms / 1e6
        print(f" | median {ms:.4f} ms = {value:.1f} {unit}  {config()}", flush=True)
        record(bench, impl, size, config(), ms, value, unit, err, tol, "ok")
        return True
    except Exception as e:  # one failing benchmark must not stop the others
        FAILURES += 1
        print(f"\n  {impl}: error: {type(e).__name__}: {e}", flush=True)
        traceback.print_exc()
        record(bench, impl, size, config(), 0, 0, unit, math.nan, tol, "error")
        return False


def best_config(kernel):
    c = getattr(kernel, "best_config", None)
    if c is None:
        return ""
    kw = " ".join(f"{k}={v}" for k, v in c.kwargs.items())
    return f"{kw} num_warps={c.num_warps} num_stages={c.num_stages}".strip()


# ---- the benchmarks ------------------------------------------------------------------------------


def bench_compile():
    """Cold compile times, as bench/h200/prepare.sh measures rk's: each autotune config of each Triton
    kernel compiled once for the benchmark's argument types and values (JITFunction.warmup: no launch)
    into a fresh cache folder, after a throwaway compile that pays the process's one-time set-up; per
    kernel, the median over its configs. Triton's compile ends at a cubin (ptxas included); rk's at
    PTX, which the driver compiles when it loads the module."""
    import os
    import statistics
    import tempfile
    print("\n== cold compile (Triton: each autotune config once, fresh cache)", flush=True)
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="rk-h200-triton-")
    f32 = torch.zeros(64, device=DEV)
    bf16 = torch.zeros(64, device=DEV, dtype=torch.bfloat16)
    f16 = torch.zeros(64, device=DEV, dtype=torch.float16)
    n = SIZES["matmul"][0]
    cols = SIZES["rows"][1]
    block = triton.next_power_of_2(cols)
    d = SIZES["attention"][3]
    where = "sm_90, GPU machine host"
    try:
        noop_kernel.warmup(f32, 1, BLOCK=32, num_warps=1, grid=(1,))
    except Exception as e:
        print(f"  set-up: error: {type(e).__name__}: {e}", flush=True)
    cases = [("matmul", matmul_kernel, (bf16, bf16, bf16, n, n, n, n, 1, n, 1, n, 1), {}),
             ("softmax", softmax_kernel, (f32, f32, cols), {"BLOCK": block}),
             ("layernorm", layernorm_kernel, (f32, f32, f32, f32, cols, 1e-5), {"BLOCK": block}),
             ("vecadd", add_kernel, (f32, f32, f32, SIZES["vecadd"]), {}),
             ("attention", attention_kernel, (f16, f16, f16, f16, 0.125, SIZES["attention"][2]), {"HEAD_DIM": d})]
    for name, kern, args, kw in cases:
        try:
            times = []
            for c in kern.configs:
                t0 = time.perf_counter()
                kern.fn.warmup(*args, grid=(1,), **kw, **c.all_kwargs())
                times.append((time.perf_counter() - t0) * 1e3)
            ms = statistics.median(times)
            print(f"  {name:10s} median {ms:.0f} ms over {len(times)} configs "
                  f"({', '.join(f'{t:.0f}' for t in times)} ms)", flush=True)
            record(f"compile_{name}", "triton", where, f"median of {len(times)} configs", ms, ms, "ms", 0, 0, "ok")
        except Exception as e:  # a change of Triton's API must not stop the benchmarks
            print(f"  {name}: error: {type(e).__name__}: {e}", flush=True)
            record(f"compile_{name}", "triton", where, "", 0, 0, "ms", math.nan, 0, "error")


def bench_matmul(n):
    print(f"\n== matmul bf16 {n}x{n}x{n}", flush=True)
    g = torch.Generator(device=DEV).manual_seed(n)
    a = (torch.rand(n, n, device=DEV, generator=g) * 2 - 1).to(torch.bfloat16)
    b = (torch.rand(n, n, device=DEV, generator=g) * 2 - 1).to(torch.bfloat16)
    c = torch.empty(n, n, device=DEV, dtype=torch.bfloat16)
    if n <= SIZES["matmul"][0]:
        rows = torch.arange(n, device=DEV)
        ref = a.double() @ b.double()
    else:  # 16 rows spread over C, the first and the last included
        rows = torch.linspace(0, n - 1, 16, device=DEV).round().long()
        ref = a[rows].double() @ b.double()
    size, flops, key = f"{n}x{n}x{n}", 2.0 * n ** 3, f"matmul_{n}"

    def triton_mm():
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)
        matmul_kernel[grid](a, b, c, n, n, n, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                            c.stride(1))

    def torch_mm():
        torch.matmul(a, b, out=c)

    for impl, fn, cfg in (("triton", triton_mm, lambda: best_config(matmul_kernel)),
                          ("torch", torch_mm, lambda: "torch.matmul")):
        c.fill_(float("nan"))
        measure(key, impl, size, "TFLOP/s", flops, fn, lambda: max_rel_err(c[rows], ref), 1e-2, cfg)
    del a, b, c, ref


def bench_rows(layernorm):
    (rows, cols), eps = SIZES["rows"], 1e-5
    name = "layernorm" if layernorm else "softmax"
    print(f"\n== {name} f32 {rows}x{cols}", flush=True)
    g = torch.Generator(device=DEV).manual_seed(1)
    x = torch.rand(rows, cols, device=DEV, generator=g) * 8 - 4
    w = torch.rand(cols, device=DEV, generator=g) + 0.5
    b = torch.rand(cols, device=DEV, generator=g) * 2 - 1
    y = torch.empty_like(x)
    if layernorm:
        ref = F.layer_norm(x.double(), (cols,), w.double(), b.double(), eps)
    else:
        ref = torch.softmax(x.double(), dim=-1)
    size = f"{rows}x{cols}"
    work = 2.0 * rows * cols * 4 + (2.0 * cols * 4 if layernorm else 0)
    block = triton.next_power_of_2(cols)

    def triton_fn():
        if layernorm:
            layernorm_kernel[(rows,)](x, w, b, y, cols, eps, BLOCK=block)
        else:
            softmax_kernel[(rows,)](x, y, cols, BLOCK=block)

    res = {}

    def torch_fn():  # torch allocates its result (from its caching allocator)
        res["y"] = F.layer_norm(x, (cols,), w, b, eps) if layernorm else torch.softmax(x, dim=-1)

    kernel = layernorm_kernel if layernorm else softmax_kernel
    y.fill_(float("nan"))
    measure(name, "triton", size, "GB/s", work, triton_fn, lambda: max_rel_err(y, ref), 1e-4,
            lambda: f"BLOCK={block} " + best_config(kernel))
    measure(name, "torch", size, "GB/s", work, torch_fn, lambda: max_rel_err(res["y"], ref), 1e-4,
            lambda: "F.layer_norm" if layernorm else "torch.softmax")
    res.clear()
    del x, y, ref


def bench_vecadd():
    n = SIZES["vecadd"]
    print(f"\n== vecadd f32 2^{n.bit_length() - 1}", flush=True)
    g = torch.Generator(device=DEV).manual_seed(2)
    x = torch.rand(n, device=DEV, generator=g) * 2 - 1
    y = torch.rand(n, device=DEV, generator=g) * 2 - 1
    out = torch.empty_like(x)
    size, work = f"2^{n.bit_length() - 1}", 3.0 * n * 4

    def check():  # in chunks: the float64 reference of the whole would be 2 GiB more
        worst, step = 0.0, 1 << 26
        for i in range(0, n, step):
            e = max_rel_err(out[i:i + step], x[i:i + step].double() + y[i:i + step].double())
            if math.isnan(e):
                return e
            worst = max(worst, e)
        return worst

    def triton_fn():
        add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, out, n)

    def torch_fn():
        torch.add(x, y, out=out)

    for impl, fn, cfg in (("triton", triton_fn, lambda: best_config(add_kernel)), ("torch", torch_fn, lambda: "torch.add")):
        out.fill_(float("nan"))
        measure("vecadd", impl, size, "GB/s", work, fn, check, 1e-6, cfg)
    out.fill_(float("nan"))
    measure("copy", "torch", size, "GB/s", 2.0 * n * 4, lambda: out.copy_(x),
            lambda: 0.0 if torch.equal(out, x) else math.inf, 0.5, lambda: "copy_")
    del x, y, out


def bench_attention():
    Z, H, N, D = SIZES["attention"]
    print(f"\n== attention fwd f16 Z={Z} H={H} N={N} D={D}", flush=True)
    g = torch.Generator(device=DEV).manual_seed(3)
    q, k, v = ((torch.rand(Z, H, N, D, device=DEV, generator=g) * 2 - 1).half() for _ in range(3))
    o = torch.empty_like(q)
    scale = 1.0 / math.sqrt(D)
    heads = [(0, 0), (Z - 1, H - 1)]
    refs = []
    for z, h in heads:
        s = (q[z, h].double() @ k[z, h].double().T) * scale
        refs.append(torch.softmax(s, dim=-1) @ v[z, h].double())
    ref = torch.stack(refs)
    size, flops = f"Z={Z} H={H} N={N} D={D}", 4.0 * Z * H * N * N * D

    def triton_fn():
        grid = lambda meta: (triton.cdiv(N, meta["BLOCK_M"]), Z * H)
        attention_kernel[grid](q, k, v, o, scale, N, HEAD_DIM=D)

    res = {}

    def torch_fn():
        res["o"] = F.scaled_dot_product_attention(q, k, v)

    def check(get):
        got = get()
        return max_rel_err(torch.stack([got[z, h] for z, h in heads]), ref)

    o.fill_(float("nan"))
    measure("attention", "triton", size, "TFLOP/s", flops, triton_fn, lambda: check(lambda: o), 5e-3,
            lambda: best_config(attention_kernel))
    measure("attention", "torch", size, "TFLOP/s", flops, torch_fn, lambda: check(lambda: res["o"]), 5e-3,
            lambda: "scaled_dot_product_attention")


def bench_launch():
    reps, rounds = SIZES["launch"], 5
    print(f"\n== launch overhead: {reps} back-to-back launches of an empty Triton kernel, {rounds} rounds", flush=True)
    x = torch.empty(32, device=DEV)
    noop_kernel[(1,)](x, 0, BLOCK=32, num_warps=1)  # compiles
    torch.cuda.synchronize()
    host, gpu = [], []
    for _ in range(rounds):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        e0.record()
        t0 = time.perf_counter()
        for _ in range(reps):
            noop_kernel[(1,)](x, 0, BLOCK=32, num_warps=1)
        t1 = time.perf_counter()
        e1.record()
        torch.cuda.synchronize()
        host.append((t1 - t0) * 1e6 / reps)
        gpu.append(e0.elapsed_time(e1) * 1e3 / reps)
    h, gp = sorted(host)[rounds // 2], sorted(gpu)[rounds // 2]
    print(f"  triton  {h:.2f} us per call on the host, {gp:.2f} us per launch on the GPU", flush=True)
    record("launch_host", "triton", "empty kernel", "noop_kernel[(1,)]", h * 1e-3, h, "us", 0, 0, "ok")
    record("launch_gpu", "triton", "empty kernel", "noop_kernel[(1,)]", gp * 1e-3, gp, "us", 0, 0, "ok")


def main():
    global RUNS, TSV, FLUSH
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tsv")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--only", default="compile,launch,vecadd,softmax,layernorm,matmul,attention")
    ap.add_argument("--small", action="store_true", help="tiny sizes, to try the script out")
    args = ap.parse_args()
    if args.small:
        SIZES.update(SMALL)
    RUNS = max(20, args.runs)
    TSV = open(args.tsv, "w") if args.tsv else None
    only = set(args.only.split(","))
    props = torch.cuda.get_device_properties(0)
    print(f"torch_triton: {props.name}, torch {torch.__version__}, triton {triton.__version__}, "
          f"{RUNS} runs per timing, L2 flushed before each", flush=True)
    if TSV:
        TSV.write(f"# triton {triton.__version__}, torch {torch.__version__} (CUDA {torch.version.cuda}), "
                  f"{props.name}\n")
    FLUSH = torch.empty(SIZES["flush"], dtype=torch.int8, device=DEV)
    t0 = time.perf_counter()
    steps = [("compile", bench_compile), ("launch", bench_launch), ("vecadd", bench_vecadd), ("softmax", lambda: bench_rows(False)),
             ("layernorm", lambda: bench_rows(True)), ("matmul", lambda: bench_matmul(SIZES["matmul"][0])),
             ("matmul", lambda: bench_matmul(SIZES["matmul"][1])), ("attention", bench_attention)]
    failed = 0
    for name, step in steps:
        if name not in only:
            continue
        try:
            step()
        except Exception as e:
            failed += 1
            print(f"\n{name}: error: {type(e).__name__}: {e}", flush=True)
            traceback.print_exc()
        torch.cuda.empty_cache()
    print(f"\ntorch_triton: done in {time.perf_counter() - t0:.1f} s", flush=True)
    if TSV:
        TSV.close()
    return 1 if failed or FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
