#!/usr/bin/env bash
# bench/h200/profile.sh: on the GPU machine (device tool, carrying build/h200/ptx), after
# bench/h200/prepare.sh here. Builds rk's runtime and rk_bench (through run.sh), then profiles one launch of rk's best matmul and attention
# variants with Nsight Compute (ncu: speed of light, compute and memory workload, warp states,
# occupancy). Writes $OUT/ncu_matmul.txt and $OUT/ncu_attention.txt; the copies kept in
# bench/h200/profiles/ are what docs/performance.md quotes.
set -u
RK_BENCH_ARGS="--only launch" bash bench/h200/run.sh rk > /dev/null 2>&1
PTX="${RK_H200_PTX:-build/h200/ptx}"
P=/tmp/pp; rm -rf $P; mkdir -p $P
grep -E "^#|matmul_128x128x32_w4_s4|attention_128x64_w4_s3" $PTX/index.tsv > $P/index.tsv
cp $PTX/matmul_128x128x32_w4_s4.* $PTX/attention_128x64_w4_s3.* $P/
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
[ -n "$NCU" ] || exit 0
for k in matmul attention; do
  timeout 200 $NCU -k regex:$k -c 1 --launch-skip 3 --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis /tmp/rk-h200/build/bench/h200/rk_bench --ptx $P --only $k --runs 3 2>&1 | grep -vE "^  *-+ *$|^==PROF==" | tail -90 > $OUT/ncu_$k.txt
done
ls -la $OUT
