#!/bin/bash
# target_names.sh: outside compiler/target/, code asks a Target for facts and hooks, never for its name
# or family (issue 18). Counts the lines of compiler/, tools/, runtime/ (but its devices' own folder,
# runtime/device/: a device's kind and the architecture it reports), support/ and isa/ that compare a
# target's name (a strcmp/strncmp or ==/!= against "gfx...", "sm_...", "emu...", "interp") or test its kind
# (TARGET_AMDGPU, TARGET_NVPTX, TARGET_EMU). Each such line left must say why on the line itself, in a
# comment holding "names a target:"; the test fails on any other, and when more than MAX are left.
#
#   bash tests/house/target_names.sh [ROOT]      (exit 0: clean; 1: the offending lines are printed)
set -u
ROOT=${1:-.}
MAX=8
cd "$ROOT" || exit 2
pat='TARGET_(AMDGPU|NVPTX|EMU)\b|(strn?cmp\([^;]*"(gfx[0-9a-z]*|sm_[0-9a-z]*|emu[_a-z0-9]*|interp)"|[!=]= *"(gfx|sm_|emu|interp))'
hits=$(grep -rnE "$pat" --include='*.c' --include='*.h' compiler tools runtime support isa | grep -v '^compiler/target/\|^runtime/device/')
bad=$(printf '%s\n' "$hits" | grep -v 'names a target:' | grep -v '^$')
allowed=$(printf '%s\n' "$hits" | grep 'names a target:' | grep -c . )
if [ -n "$bad" ]; then
    echo "target_names: lines outside compiler/target that test a target's name or family:"
    printf '%s\n' "$bad"
    echo "ask the Target for a fact or a hook instead (compiler/target/target.h), or say why on the line"
    echo "with a comment holding 'names a target:'"
    exit 1
fi
if [ "$allowed" -gt "$MAX" ]; then
    echo "target_names: $allowed commented name tests outside compiler/target (at most $MAX):"
    printf '%s\n' "$hits"
    exit 1
fi
echo "target_names: $allowed commented name tests outside compiler/target (at most $MAX), none other"
