"""Triton's side of bench/vs_triton: the Triton kernels that kernels/*.tile mirror, compiled for
gfx942 without a GPU through triton.compile (Triton 3.x: ASTSource + GPUTarget("hip", "gfx942", 64)).

  python triton_side.py compile CASE_ID OUTDIR
      compiles one case of cases.py once with an empty cache and once more with the cache warm;
      writes OUTDIR/CASE_ID.hsaco (and .amdgcn) and prints one line of JSON: import_ms (importing
      triton), compile_ms (the cold compile call; compile_cpu_ms: its CPU time, all threads), cached_ms (the warm call), stages_ms (the cold
      call's stages as Triton's compilation listener times them: init (the AST to TTIR), ttir,
      ttgir, llir (MLIR to LLVM IR and LLVM's optimisation), amdgcn (LLVM's code generation), hsaco
      (assembling and linking)), shared (the LDS bytes Triton allocates at launch: its code objects
      declare none), triton_version.
      TRITON_CACHE_DIR should name a fresh folder; without it one is made (and removed).

Specialisation: what Triton's JIT derives when it is called with 16-byte-aligned tensors and with
sizes and strides that are multiples of 16: tt.divisibility = 16 on every pointer and integer
argument ("D"), the unit strides of the tutorials as the constant 1, and, on AMD, tt.pointer_range
= 32 on pointers ("S": the JIT adds it for tensors under 2 GiB while AMDGCN_USE_BUFFER_OPS is on,
its default; it lets Triton use buffer loads and stores). VT_TRITON_POINTER_RANGE=0 leaves "S" out.
"""
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402

t_import0 = time.perf_counter()
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # 3.9's default, without its warning
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402
t_import1 = time.perf_counter()


# ---- the kernels ---------------------------------------------------------------------------------

# Triton's matmul tutorial (03-matrix-multiplication), without the optional activation; the output
# takes c's element type (the tutorial writes f16).
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)
    tl.assume(stride_am > 0)
    tl.assume(stride_ak > 0)
    tl.assume(stride_bn > 0)
    tl.assume(stride_bk > 0)
    tl.assume(stride_cm > 0)
    tl.assume(stride_cn > 0)
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


# Triton's fused-softmax tutorial (02-fused-softmax) with one row per program (its persistent
# row loop taken out).
@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    input_ptrs = row_start_ptr + col_offsets
    mask = col_offsets < n_cols
    row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * output_row_stride
    output_ptrs = output_row_start_ptr + col_offsets
    tl.store(output_ptrs, softmax_output, mask=mask)


# The forward kernel of Triton's layer-norm tutorial (05-layer-norm).
@triton.jit
def _layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps, M, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


# The forward kernel of Triton's fused-attention tutorial (06-fused-attention) in its pointer form,
# non-causal: one program takes BLOCK_M query rows of one (batch, head) and walks all keys.
@triton.jit
def attn_fwd(Q, K, V, Out, sm_scale, stride_z, stride_h, stride_m, Z, H, N_CTX,
             HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    offset = off_z.to(tl.int64) * stride_z + off_h.to(tl.int64) * stride_h
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    k_ptrs = K + offset + offs_d[:, None] + offs_n[None, :] * stride_m
    v_ptrs = V + offset + offs_n[:, None] * stride_m + offs_d[None, :]
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = tl.load(Q + offset + offs_m[:, None] * stride_m + offs_d[None, :])
    for start_n in range(0, N_CTX, BLOCK_N):
        k = tl.load(k_ptrs)
        qk = tl.dot(q, k)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(v_ptrs)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
        k_ptrs += BLOCK_N * stride_m
        v_ptrs += BLOCK_N * stride_m
    acc = acc / l_i[:, None]
    tl.store(Out + offset + offs_m[:, None] * stride_m + offs_d[None, :], acc.to(Out.type.element_ty))


# tl.cumsum along the rows of an R x C tile, one tile per program (issue 25's scan case).
@triton.jit
def cumsum_kernel(X, Out, P, R: tl.constexpr, C: tl.constexpr):
    i = tl.arange(0, R)
    j = tl.arange(0, C)
    off = tl.program_id(0) * (R * C) + i[:, None] * C + j[None, :]
    tl.store(Out + off, tl.cumsum(tl.load(X + off), axis=1))


# Row-wise cross-entropy forward and its gradient, written from the published algorithm of
# Liger-Kernel's cross-entropy kernel (online softmax over the vocabulary in blocks; a second pass
# writes (softmax(x) - onehot(y)) / n_rows over the logits; loss = log(d) + m - x[y]), without
# ignore_index, label smoothing and z-loss. kernels/cross_entropy.tile is the same program.
@triton.jit
def cross_entropy_kernel(X, Y, Loss, stride, n_cols, n_rows, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    X += row * stride
    y = tl.load(Y + row)
    xy = tl.load(X + y)
    m = float("-inf")
    d = 0.0
    for off in range(0, n_cols, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        xb = tl.load(X + cols, mask=cols < n_cols, other=float("-inf"))
        mn = tl.maximum(m, tl.max(xb))
        d = d * tl.exp(m - mn) + tl.sum(tl.exp(xb - mn))
        m = mn
    scale = 1.0 / n_rows
    for off in range(0, n_cols, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        xb = tl.load(X + cols, mask=mask, other=float("-inf"))
        g = tl.exp(xb - m) / d
        tl.store(X + cols, tl.where(cols == y, g - 1.0, g) * scale, mask=mask)
    tl.store(Loss + row, (tl.log(d) + m - xy) * scale)


# Row-wise KL divergence (log_target false, summed over each row), written from the published
# algorithm of Liger-Kernel's KL-divergence forward kernel. kernels/kl_div.tile is the same program.
@triton.jit
def kl_div_kernel(YPred, YTrue, Loss, stride, n_cols, n_rows, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    YPred += row * stride
    YTrue += row * stride
    acc = 0.0
    for off in range(0, n_cols, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        p = tl.load(YPred + cols, mask=mask, other=0.0)
        t = tl.load(YTrue + cols, mask=mask, other=0.0)
        acc += tl.sum(t * (tl.log(tl.maximum(t, eps)) - p))
    tl.store(Loss + row, acc)


# ---- signatures ----------------------------------------------------------------------------------

def _source(case):
    """The ASTSource of a case: signature, constexprs and the JIT's attributes."""
    k, c = case["triton_kernel"], case["triton_consts"]
    if k == "matmul":
        t = "*" + c["dtype"]
        args = [("a_ptr", t), ("b_ptr", t), ("c_ptr", t), ("M", "i32"), ("N", "i32"), ("K", "i32"),
                ("stride_am", "i32"), ("stride_ak", 1), ("stride_bk", "i32"), ("stride_bn", 1),
                ("stride_cm", "i32"), ("stride_cn", 1)]
        consts = dict(BLOCK_SIZE_M=c["BLOCK_M"], BLOCK_SIZE_N=c["BLOCK_N"], BLOCK_SIZE_K=c["BLOCK_K"],
                      GROUP_SIZE_M=c["GROUP_M"])
        fn = matmul_kernel
    elif k == "softmax":
        args = [("output_ptr", "*fp32"), ("input_ptr", "*fp32"), ("input_row_stride", "i32"),
                ("output_row_stride", "i32"), ("n_rows", "i32"), ("n_cols", "i32")]
        consts = dict(BLOCK_SIZE=c["BLOCK"])
        fn = softmax_kernel
    elif k == "layernorm":
        args = [("X", "*fp16"), ("Y", "*fp16"), ("W", "*fp16"), ("B", "*fp16"), ("Mean", "*fp32"),
                ("Rstd", "*fp32"), ("stride", "i32"), ("N", "i32"), ("eps", "fp32"), ("M", "i32")]
        consts = dict(BLOCK_SIZE=c["BLOCK"])
        fn = _layer_norm_fwd_fused
    elif k == "attention":
        args = [("Q", "*fp16"), ("K", "*fp16"), ("V", "*fp16"), ("Out", "*fp16"), ("sm_scale", "fp32"),
                ("stride_z", "i32"), ("stride_h", "i32"), ("stride_m", "i32"), ("Z", "i32"), ("H", "i32"),
                ("N_CTX", "i32")]
        consts = dict(HEAD_DIM=c["HEAD_DIM"], BLOCK_M=c["BLOCK_M"], BLOCK_N=c["BLOCK_N"])
        fn = attn_fwd
    elif k == "cumsum":
        args = [("X", "*fp32"), ("Out", "*fp32"), ("P", "i32")]
        consts = dict(R=c["R"], C=c["C"])
        fn = cumsum_kernel
    elif k == "cross_entropy":
        args = [("X", "*fp32"), ("Y", "*i64"), ("Loss", "*fp32"), ("stride", "i32"), ("n_cols", "i32"),
                ("n_rows", "i32")]
        consts = dict(BLOCK_SIZE=c["BLOCK"])
        fn = cross_entropy_kernel
    elif k == "kl_div":
        args = [("YPred", "*fp32"), ("YTrue", "*fp32"), ("Loss", "*fp32"), ("stride", "i32"), ("n_cols", "i32"),
                ("n_rows", "i32"), ("eps", "fp32")]
        consts = dict(BLOCK_SIZE=c["BLOCK"])
        fn = kl_div_kernel
    else:
        raise KeyError(k)
    pointer_range = os.environ.get("VT_TRITON_POINTER_RANGE", "1") != "0"
    signature, constexprs, attrs = {}, {}, {}
    for i, (name, ty) in enumerate(args):
        if not isinstance(ty, str):  # an integer the JIT saw equal to 1: a constexpr
            signature[name] = "constexpr"
            constexprs[name] = ty
            continue
        ty = {"*bf16": "*bf16", "*f16": "*fp16"}.get(ty, ty)
        signature[name] = ty
        if ty.startswith("*"):
            attrs[(i,)] = [["tt.divisibility", 16]] + ([["tt.pointer_range", 32]] if pointer_range else [])
        elif ty.startswith("i"):
            attrs[(i,)] = [["tt.divisibility", 16]]
    for name, v in consts.items():
        signature[name] = "constexpr"
        constexprs[name] = v
    return ASTSource(fn, signature, constexprs, attrs)


def compile_case(cid, outdir):
    case = cases.by_id(cid)
    made_cache = "TRITON_CACHE_DIR" not in os.environ
    if made_cache:
        os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="vt-triton-cache-")
    try:
        target = GPUTarget("hip", "gfx942", 64)
        opts = dict(case["triton_opts"])
        stages = {}

        def listener(src, metadata, metadata_group, times, cache_hit):
            if not cache_hit:
                stages["init"] = times.ir_initialization / 1e3
                for name, us in times.lowering_stages:
                    stages[name] = us / 1e3

        triton.knobs.compilation.listener = listener
        c0 = time.process_time()
        t0 = time.perf_counter()
        k = triton.compile(_source(case), target=target, options=opts)
        t1 = time.perf_counter()
        c1 = time.process_time()
        triton.knobs.compilation.listener = None
        k2 = triton.compile(_source(case), target=target, options=opts)
        t2 = time.perf_counter()
        assert k2.asm["hsaco"] == k.asm["hsaco"]
        with open(os.path.join(outdir, cid + ".hsaco"), "wb") as f:
            f.write(k.asm["hsaco"])
        with open(os.path.join(outdir, cid + ".amdgcn"), "w") as f:
            f.write(k.asm["amdgcn"])
        print(json.dumps(dict(case=cid, import_ms=round((t_import1 - t_import0) * 1e3, 2),
                              compile_ms=round((t1 - t0) * 1e3, 2), compile_cpu_ms=round((c1 - c0) * 1e3, 2),
                              cached_ms=round((t2 - t1) * 1e3, 2),
                              stages_ms={k: round(v, 2) for k, v in stages.items()},
                              shared=int(k.metadata.shared), triton_version=triton.__version__)))
    finally:
        if made_cache:
            shutil.rmtree(os.environ["TRITON_CACHE_DIR"], ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "compile":
        compile_case(sys.argv[2], sys.argv[3])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
