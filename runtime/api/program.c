/* Programs and kernels: building a program from a code object and its kernels' descriptions, the
 * kernel queries, loading the module on the device at the first launch (rt_kernel_ready), and the
 * scalar type table of rk.h.
 *
 * A program is one arena. Each kernel's argument block layout (HIP's: every argument at its natural
 * alignment, in order, pointers 8 bytes) is computed once here, with a block and a pointer array to
 * build each launch's arguments in, so that launching allocates nothing. The @grid function arrives as
 * TIR text and is parsed into the program's arena; launch evaluates it with the interpreter. */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "support/fp16.h"
#include "runtime/api/api_internal.h"

static const struct {
    const char *name;
    size_t size;
} dtypes[] = {{"bool", 1}, {"i8", 1},  {"i16", 2}, {"i32", 4},  {"i64", 8},  {"u8", 1},  {"u16", 2},
              {"u32", 4},  {"u64", 8}, {"f16", 2}, {"bf16", 2}, {"f32", 4}, {"f64", 8}};

const char *rk_dtype_name(rk_dtype dtype)
{
    return (unsigned)dtype < sizeof dtypes / sizeof dtypes[0] ? dtypes[dtype].name : NULL;
}

size_t rk_dtype_size(rk_dtype dtype)
{
    return (unsigned)dtype < sizeof dtypes / sizeof dtypes[0] ? dtypes[dtype].size : 0;
}

uint16_t rk_f16_from_double(double x)
{
    return f64_to_f16(x);
}

uint16_t rk_bf16_from_double(double x)
{
    return f64_to_bf16(x);
}

double rk_f16_to_double(uint16_t bits)
{
    return f16_to_f32(bits);
}

double rk_bf16_to_double(uint16_t bits)
{
    return bf16_to_f32(bits);
}

/* ---- building ---- */

static size_t param_size(const rk_param *p)
{
    return p->kind == RK_PARAM_POINTER ? 8 : rk_dtype_size(p->dtype);
}

/* Parses the grid function text and maps its arguments to the kernel's parameters by name. False with
 * the context's error set when it does not parse (a compiler bug). */
static bool parse_grid(rk_ctx *ctx, Arena *a, rk_kernel *k, const char *text)
{
    SrcMgr *src = ARENA_NEW(a, SrcMgr);
    src_init(src, a);
    Diags *diags = ARENA_NEW(a, Diags);
    diags_init(diags, a, src);
    StrTab *strs = ARENA_NEW(a, StrTab);
    strtab_init(strs, a);
    TypeTab *types = ARENA_NEW(a, TypeTab);
    typetab_init(types, a);
    SrcFile *f = src_add(src, "<grid>", text, strlen(text));
    Module *m = f ? tir_parse(a, types, strs, diags, f) : NULL;
    Func *g = NULL;
    for (int i = 0; m && i < m->nfuncs; i++)
        if (m->funcs[i]->kind == FUNC_GRID)
            g = m->funcs[i];
    if (!g) {
        rt_fail(ctx, RK_EINTERNAL, "internal error: the @grid function of %s does not parse%s%s", k->name,
                diags->n ? ": " : "", diags->n ? diags->items[0].msg : "");
        return false;
    }
    k->grid = g;
    k->grid_params = ARENA_ARRAY(a, int, g->body->nargs + 1);
    k->grid_args = ARENA_ARRAY(a, const void *, g->body->nargs + 1);
    for (int i = 0; i < g->body->nargs; i++) {
        const char *name = g->body->args[i].name;
        int j = 0;
        while (j < k->nparams && !(name && strcmp(name, k->params[j].name) == 0))
            j++;
        if (j == k->nparams) {
            rt_fail(ctx, RK_EINTERNAL, "internal error: the @grid function of %s takes '%s', which is not a parameter",
                    k->name, name ? name : "?");
            return false;
        }
        k->grid_params[i] = j;
        k->grid_key_size += param_size(&k->params[j]);
    }
    k->grid_key = arena_alloc(a, k->grid_key_size + 1);
    return true;
}

static bool build_kernel(rk_ctx *ctx, rk_program *p, rk_kernel *k, const RtKernelDesc *d)
{
    Arena *a = &p->arena;
    k->prog = p;
    k->name = arena_strdup(a, d->name);
    k->symbol = arena_strdup(a, d->symbol ? d->symbol : d->name);
    k->config = arena_strdup(a, d->config ? d->config : "");
    k->nparams = d->nparams;
    k->params = ARENA_ARRAY(a, rk_param, d->nparams + 1);
    k->offsets = ARENA_ARRAY(a, size_t, d->nparams + 1);
    size_t off = 0;
    for (int i = 0; i < d->nparams; i++) {
        k->params[i] = d->params[i];
        k->params[i].name = arena_strdup(a, d->params[i].name);
        if (d->params[i].kind != RK_PARAM_POINTER && rk_dtype_size(d->params[i].dtype) == 0) {
            rt_fail(ctx, RK_EINTERNAL, "internal error: parameter %s of %s has an unknown type", d->params[i].name,
                    d->name);
            return false;
        }
        size_t sz = param_size(&k->params[i]);
        off = (off + sz - 1) / sz * sz;
        k->offsets[i] = off;
        off += sz;
    }
    k->kernarg_size = (off + 7) / 8 * 8;
    k->kernarg = arena_alloc(a, k->kernarg_size ? k->kernarg_size : 8);
    k->tma_spec = d->tma ? arena_strdup(a, d->tma) : NULL;
    k->grid_text = d->grid_tir ? arena_strdup(a, d->grid_tir) : NULL;
    k->work = d->work ? arena_strdup(a, d->work) : NULL;
    if (k->tma_spec && !rt_tma_parse(ctx, a, k))
        return false;
    k->argptrs = ARENA_ARRAY(a, const void *, d->nparams + k->ntma + 1);
    k->num_warps = d->num_warps;
    k->block = d->block;
    k->lds_bytes = d->lds_bytes;
    if (!rt_spec_kernel_init(ctx, a, k, d->facts, d->nospec))
        return false;
    return !d->grid_tir || parse_grid(ctx, a, k, d->grid_tir);
}

static void unlink_program(rk_program *p)
{
    rk_ctx *ctx = p->ctx;
    if (p->prev)
        p->prev->next = p->next;
    else if (ctx->programs == p)
        ctx->programs = p->next;
    if (p->next)
        p->next->prev = p->prev;
    p->prev = p->next = NULL;
}

void rt_program_unlink(rk_program *p)
{
    unlink_program(p);
}

rk_status rt_program_new(rk_ctx *ctx, const char *target, const void *binary, size_t size, const RtKernelDesc *kernels,
                         int nkernels, rk_program **out)
{
    *out = NULL;
    rk_program *p = arena_alloc_raw(&ctx->alloc, sizeof *p);
    if (!p)
        return rt_fail(ctx, RK_ENOMEM, "out of memory");
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    arena_init(&p->arena, ctx->alloc);
    jmp_buf oom;
    if (setjmp(oom)) {
        arena_free(&p->arena);
        arena_free_raw(&ctx->alloc, p, sizeof *p);
        return rt_fail(ctx, RK_ENOMEM, "out of memory");
    }
    p->arena.oom = &oom;
    p->target = arena_strdup(&p->arena, target);
    p->binary = arena_alloc(&p->arena, size + 1); /* NUL-terminated: text code objects are used as strings */
    if (size)
        memcpy(p->binary, binary, size);
    p->size = size;
    p->nkernels = nkernels;
    p->kernels = ARENA_ARRAY(&p->arena, rk_kernel, nkernels + 1);
    for (int i = 0; i < nkernels; i++) {
        if (!build_kernel(ctx, p, &p->kernels[i], &kernels[i])) {
            arena_free(&p->arena);
            arena_free_raw(&ctx->alloc, p, sizeof *p);
            return RK_EINTERNAL;
        }
    }
    p->arena.oom = NULL;
    p->next = ctx->programs;
    if (ctx->programs)
        ctx->programs->prev = p;
    ctx->programs = p;
    *out = p;
    return RK_OK;
}

void rk_program_destroy(rk_program *p)
{
    if (!p)
        return;
    rk_ctx *ctx = p->ctx;
    for (int i = 0; i < p->nkernels; i++)
        rt_spec_free(&p->kernels[i]);
    if (p->mod)
        ctx->dev->ops->unload(ctx->dev, p->mod);
    unlink_program(p);
    arena_free(&p->arena);
    arena_free_raw(&ctx->alloc, p, sizeof *p);
}

/* ---- queries ---- */

rk_status rk_program_binary(const rk_program *p, const void **bytes, size_t *size)
{
    if (!p || !bytes || !size)
        return RK_EINVAL;
    *bytes = p->binary;
    *size = p->size;
    return RK_OK;
}

const char *rk_program_target(const rk_program *p)
{
    return p ? p->target : NULL;
}

rk_status rk_program_kernel(rk_program *p, const char *name, rk_kernel **k)
{
    if (!p)
        return RK_EINVAL;
    RT_ENTER(p->ctx);
    if (!name || !k)
        return rt_fail(p->ctx, RK_EINVAL, "rk_program_kernel: %s is NULL", name ? "kernel" : "name");
    *k = NULL;
    for (int i = 0; i < p->nkernels; i++)
        if (strcmp(p->kernels[i].name, name) == 0) {
            *k = &p->kernels[i];
            return RK_OK;
        }
    char list[512] = "";
    size_t n = 0;
    for (int i = 0; i < p->nkernels && n < sizeof list; i++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", p->kernels[i].name);
    return rt_fail(p->ctx, RK_ENOTFOUND, "no kernel named '%s' in the program (kernels: %s)", name,
                   p->nkernels ? list : "none");
}

int rk_program_kernel_count(const rk_program *p)
{
    return p ? p->nkernels : 0;
}

rk_status rk_program_kernel_at(rk_program *p, int i, rk_kernel **k)
{
    if (!p)
        return RK_EINVAL;
    RT_ENTER(p->ctx);
    if (!k || i < 0 || i >= p->nkernels)
        return rt_fail(p->ctx, RK_EINVAL, "rk_program_kernel_at: no kernel %d (the program has %d)", i, p->nkernels);
    *k = &p->kernels[i];
    return RK_OK;
}

rk_status rk_kernel_get_info(const rk_kernel *k, rk_kernel_info *info)
{
    if (!k || !info)
        return RK_EINVAL;
    *info = (rk_kernel_info){k->name, k->nparams, k->num_warps, k->block, k->lds_bytes, k->grid != NULL};
    return RK_OK;
}

rk_status rk_kernel_get_param(const rk_kernel *k, int i, rk_param *param)
{
    if (!k || !param || i < 0 || i >= k->nparams)
        return RK_EINVAL;
    *param = k->params[i];
    return RK_OK;
}

const char *rk_kernel_config(const rk_kernel *k)
{
    return k ? k->config : "";
}
