#!/bin/bash
# emu_bench.sh: run times of the example kernels on the emulator (rkc run --bench, median of 5), for
# comparing the emulator before and after a change (docs/performance.md, "Interpreter and emulator").
#
#   bash bench/emu_bench.sh RKC [DEVICE]      (from the source tree; DEVICE: emu (default) or emu_sm90)
#
# RK_CHECK_RACES=1 in the environment runs them under the race checker.
set -u
RKC=$1 DEV=${2:-emu}
run() { # name, then rkc run arguments
    local name=$1; shift
    local t
    t=$(RK_DEVICE=$DEV RK_ALWAYS_COMPILE=1 "$RKC" run "$@" --no-tune --bench 2>&1 | grep -o 'median [0-9.]* ms' | grep -o '[0-9.]*')
    printf '%-28s %10s ms\n' "$name" "${t:-FAIL}"
}
run "softmax 64x4096 f32" examples/softmax.tile -k softmax -D BLOCK=4096 -D ALIGN=16 \
    x=rand:f32[262144] y=zeros:f32[262144] rows=64 cols=4096 stride_x=4096 stride_y=4096
run "matmul bf16 256^3" examples/matmul.tile -k matmul -D BLOCK_M=64 -D BLOCK_N=64 -D BLOCK_K=32 -D num_warps=4 \
    a=rand:bf16[65536] b=rand:bf16[65536] c=zeros:bf16[65536] M=256 N=256 K=256 lda=256 ldb=256 ldc=256
run "split-K bf16 256^3" examples/split_k.tile -k matmul_split_k \
    a=rand:bf16[65536] b=rand:bf16[65536] c=zeros:f32[65536] M=256 N=256 K=256 lda=256 ldb=256 ldc=256
run "layernorm bwd dx 64x1024" examples/layernorm.tile -k layernorm_bwd_dx -D ALIGN=16 \
    x=rand:f32[65536] dy=rand:f32[65536] w=rand:f32[1024] mean_in=rand:f32[64] rstd_in=rand:f32[64] \
    dx=zeros:f32[65536] dw_part=zeros:f32[65536] db_part=zeros:f32[65536] M=64 N=1024 stride=1024
run "vecadd f32 1M" examples/vecadd.tile -k vecadd -D ALIGN=16 \
    x=rand:f32[1048576] y=rand:f32[1048576] out=zeros:f32[1048576] n=1048576
