#!/usr/bin/env bash
# The text form round-trips at every dump stage: for each kernel of examples/*.tile and
# bench/kernels/*.tile, on gfx942 and sm_90, every RK_DUMP_IR dump from tir to lir (layouts included)
# reads back with `rkc -x tir` and prints byte-identical: print(parse(print(F))) == print(F).
#   bash roundtrip_stages.sh RKC ROOT
set -u
rkc=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
for f in "$root"/examples/*.tile "$root"/bench/kernels/*.tile; do
  for t in gfx942 sm_90; do
    d="$tmp/$(basename "$f" .tile).$t"
    mkdir -p "$d"
    if ! RK_DUMP_IR=tir,pipeline,choose_dots,coalesce,assign_layouts,remove_converts,plan_async,allocate_lds,lir RK_DUMP_DIR="$d" \
         "$rkc" "$f" --target=$t --emit=lir -o /dev/null -I "$root/examples" 2>"$d/err"; then
      echo "cannot compile $f for $t:"; cat "$d/err"; bad=$((bad + 1)); continue
    fi
    for ir in "$d"/*.tir "$d"/*.lir; do
      [ -e "$ir" ] || continue
      n=$((n + 1))
      grep -v '^// facts:' "$ir" > "$ir.in"
      if ! "$rkc" -x tir "$ir.in" --emit=tir --target=$t -o "$ir.out" 2>"$ir.err" || ! cmp -s "$ir.in" "$ir.out"; then
        echo "FAILED: $(basename "$ir") ($t, from $f)"; head -5 "$ir.err"
        diff "$ir.in" "$ir.out" 2>/dev/null | head -6
        bad=$((bad + 1))
      fi
    done
  done
done
echo "$n dumps read back, $bad failed"
[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
