#!/bin/bash
# The symbol test (issue 18): what the installed libraries define for the programs that link them.
# librk.so exports the public API of rk.h and nothing else (rk_). librk.a cannot hide its internals,
# so each global it defines must carry the prefix of the module that defines it (STYLE.md: lex_,
# sema_, tir_, ...): a bare name such as bind or lookup collides with POSIX or with the program's own
# functions when it links rk statically. Everything else is static. The test installs BUILD_DIR into
# a temporary prefix, runs nm on both libraries and lists every defined global that breaks the rule.
# Exit 77 (skipped) when nm or cmake is missing.
#   usage: check_symbols.sh BUILD_DIR
set -u
build=$1
for tool in cmake nm; do
    command -v $tool >/dev/null 2>&1 || { echo "symbol test: $tool not found: skipped"; exit 77; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rk-symbols-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; echo "symbol test: FAIL: cmake --install"; exit 1; }
lib=$(dirname "$(find "$tmp" -name librk.a | head -1)")
[ -f "$lib/librk.a" ] && [ -f "$lib/librk.so" ] || { echo "symbol test: FAIL: librk.a or librk.so was not installed"; exit 1; }

# The modules' prefixes, by folder.
prefixes=(
    rk_                                             # include/rk.h: the public API
    arena_ diag_ diags_ src_ strtab_ facts_ strbuf_ # support/ (its files: rt_)
    rt_ emu_ interp_ tune_ prof_ cache_ memreg_     # runtime/
    blob_ record_ hash_ json_                       # runtime/cache, runtime/bundle: records, keys, manifests
    lex_ parse_ ast_                                # compiler/front (lemon's entry points: parse_lemon*)
    msgpack_                                        # compiler/report: the code object's metadata
    sema_ sv_                                       # compiler/sema (sv_: its values, SVal)
    tir_ ty_ sk_ typetab_                           # compiler/tir (ty_, sk_: types and scalar kinds)
    lay_                                            # compiler/layout
    compute_ pass_                                  # compiler/passes: analyses (STYLE.md), the pass table
    lower_ cg_ codegen_ report_ driver_             # lowering, code generation, the ISA report, the driver
    tgt_ target_ amdgpu_ nvptx_                     # compiler/target and its families' folders
    compile_ variants_                              # compiler/api
)
# Names that break the rule in folders being reorganised (issue 18: compiler/lower, compiler/passes,
# compiler/layout, compiler/tir/parse.c and their users): they are renamed there, and leave this list.
pending=(
    assign_layouts remove_converts choose_dot tma_match tma_param_index tma_strip pipeline_loads
    axis_of axis_vector_width
    lval lval_new lval_set const_i32 const_i64 llvm_type site_of vector_of reg_coord global_string
    lin_reg_of copies_begin copies_end deferred_chunk_ptr deferred_read lds_free_offset lds_transfer
    async_after_loop async_init async_plan async_release async_wait stage_chunk_offset
    tma_bind_params tma_check tma_flag_init tma_init tma_init_done tma_inval tma_issue tma_ring
    tma_spec tma_wait is_wgmma_dot wgmma_after_loop wgmma_loop_begin wgmma_loop_end nvmath_call
    mma_a_fragment fp_const fp_down fp_up fp_from_f32 fp_from_f64 fp_is16 fp_to_f32
    laytab_init nv_mma_name lin_equal lin_reg_coords gpu_params gpu_signature
    al_async_live_at al_async_load al_async_shared_layout al_default_layout al_dot_layouts al_emit_at
    al_encloses al_get al_hoist al_is_free al_mem_layout al_pref al_pref_of al_store_in_place
    b_const_float b_const_int b_op b_op0 b_op1 b_op2 b_op3
    str_intern str_intern0 ptrvec_push locked_allocator locked_allocator_init
    locked_allocator_destroy f16_to_f32 bf16_to_f32 f64_to_f16 f64_to_bf16 fp_round fp_fma
)
re="^($(IFS='|'; echo "${prefixes[*]}"))"
bad=0
report() { # library, its symbols
    local what=$1 list
    list=$(grep -Ev "$re" | grep -Fvx -f <(printf '%s\n' "${pending[@]}") | sort -u)
    if [ -n "$list" ]; then
        echo "symbol test: FAIL: $what defines globals without a module prefix:"
        echo "$list" | sed 's/^/  /'
        bad=1
    fi
}
report librk.a < <(nm -g --defined-only "$lib/librk.a" 2>/dev/null | awk 'NF >= 3 { print $NF }')
report librk.so < <(nm -D --defined-only "$lib/librk.so" | awk 'NF >= 3 { print $NF }' | grep -v '^rk_' | sed 's/^/(not rk_) /')
for s in bind lookup; do # the two that started it: POSIX's bind(2), and a name every program has
    nm -g --defined-only "$lib/librk.a" "$lib/librk.so" 2>/dev/null | awk '{ print $NF }' | grep -qx "$s" &&
        { echo "symbol test: FAIL: '$s' is defined"; bad=1; }
done
[ $bad = 0 ] || exit 1
echo "symbol test: ok ($(nm -g --defined-only "$lib/librk.a" 2>/dev/null | awk 'NF >= 3' | wc -l) globals in librk.a," \
     "$(nm -D --defined-only "$lib/librk.so" | awk 'NF >= 3' | wc -l) exported by librk.so; ${#pending[@]} pending renames)"
