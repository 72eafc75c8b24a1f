/* Module-level semantics: loading files and imports, global names, module consts, and compiling each
 * kernel — its const parameters (defaults, -D, autotune configs), compile options, run-time
 * parameters, body, @grid function and @autotune space. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compiler/front/parse.h"
#include "compiler/report/work.h"
#include "compiler/sema/sema_internal.h"
#include "support/files.h"

SVal sema_error(Sema *S, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vat(S->diags, DIAG_ERROR, loc, fmt, ap);
    va_end(ap);
    return sv_err();
}

bool sema_step(Sema *S, Loc loc)
{
    if (++S->work <= MAX_KERNEL_WORK)
        return true;
    if (S->work == MAX_KERNEL_WORK + 1)
        sema_error(S, loc,
                   "kernel '%s' is too large: it expands to more than %d statements and expressions (static for "
                   "loops unrolled, fns inlined)",
                   S->kernel ? S->kernel->name : "?", MAX_KERNEL_WORK);
    return false;
}

SrcPos sema_pos(Sema *S, Loc loc)
{
    SrcPos p = {0, 0, 0};
    SrcFile *f = loc.file ? src_file(S->src, loc.file) : NULL;
    if (!f)
        return p;
    int line, col;
    src_linecol(f, loc.off, &line, &col);
    p.file = tir_module_file(S->module, f->name);
    p.line = (uint32_t)line;
    p.col = (uint32_t)col;
    return p;
}

void sema_set_loc(Sema *S, Loc loc)
{
    if (loc.file)
        S->b.pos = sema_pos(S, loc);
}

bool sema_is_option(const char *name)
{
    static const char *const opts[] = {"num_warps", "num_stages", "waves_per_eu", "matrix_instr_nonkdim", "kpack"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if (strcmp(name, opts[i]) == 0)
            return true;
    return false;
}

/* ---- files and imports ---- */

/* Imports are files a source names, and a source may come from anyone (a JIT service compiling what it
 * is sent): an import resolves only to a regular file whose name ends in ".tile" (the name, not a
 * folder on the way: "evil.tile/../../etc/passwd" is "evil.tile/../../etc/passwd.tile"), is read to its
 * size and no further by rt_read_file (never a device, a FIFO or /proc file), and with SemaOptions.confine_imports only
 * inside the -I folders and the stdlib (issue 23). So a diagnostic never echoes bytes of a file that is
 * not a tile source. */
enum { MAX_MODULE_BYTES = 64 << 20 };

static bool ends_with_tile(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && strcmp(name + n - 5, ".tile") == 0 && name[n - 6] != '/';
}

/* A regular, readable file whose name ends in ".tile", also once symlinks are followed (a link
 * x.tile -> /etc/passwd is not a module). */
static bool is_module_file(const char *p)
{
    struct stat st;
    char rp[PATH_MAX];
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, R_OK) == 0 && realpath(p, rp) &&
           ends_with_tile(rp);
}

static const char *dir_of(Sema *S, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return ".";
    return arena_strndup(S->arena, path, (size_t)(slash - path));
}

/* confine_imports: whether path (resolved: symlinks, "..") lies inside folder (resolved). */
static bool inside(const char *path, const char *folder)
{
    char rp[PATH_MAX], rf[PATH_MAX];
    if (!folder || !realpath(path, rp) || !realpath(folder, rf))
        return false;
    size_t n = strlen(rf);
    return strncmp(rp, rf, n) == 0 && (rp[n] == '/' || (n == 1 && rf[0] == '/'));
}

static bool allowed(Sema *S, const char *p)
{
    if (!is_module_file(p))
        return false;
    if (!S->opts->confine_imports)
        return true;
    for (int i = 0; i < S->opts->nincdirs; i++)
        if (inside(p, S->opts->incdirs[i]))
            return true;
    return inside(p, S->opts->stdlib_dir);
}

/* -I dirs, then the installed stdlib, then the importing file's folder (not when confined). */
static const char *find_import(Sema *S, const char *name, const char *from)
{
    const char *file = ends_with_tile(name) ? name : arena_printf(S->arena, "%s.tile", name);
    if (file[0] == '/')
        return allowed(S, file) ? file : NULL;
    for (int i = 0; i < S->opts->nincdirs; i++) {
        const char *p = arena_printf(S->arena, "%s/%s", S->opts->incdirs[i], file);
        if (allowed(S, p))
            return p;
    }
    if (S->opts->stdlib_dir) {
        const char *p = arena_printf(S->arena, "%s/%s", S->opts->stdlib_dir, file);
        if (allowed(S, p))
            return p;
    }
    const char *p = arena_printf(S->arena, "%s/%s", dir_of(S, from), file);
    return allowed(S, p) ? p : NULL;
}

typedef struct Loaded {
    const char *realpath;
    struct Loaded *next;
} Loaded;

static void declare(Sema *S, Node *item, BindKind kind)
{
    const char *name = item->name;
    Binding *old = sema_global_find(S, name); /* at most one: a second is this error */
    if (old) {
        int line, col;
        SrcFile *f = src_file(S->src, old->loc.file);
        src_linecol(f, old->loc.off, &line, &col);
        sema_error(S, item->loc, "'%s' is defined twice: first at %s:%d:%d", name, f->name, line, col);
        return;
    }
    if (sema_is_builtin(name) || sk_from_name(name) >= 0) {
        sema_error(S, item->loc, "'%s' is the name of a builtin and cannot be redefined", name);
        return;
    }
    Binding *b = sema_bind(S, S->globals, name, kind, sv_void(), item->loc);
    b->decl = item;
}

static bool load_module(Sema *S, SrcFile *f, Loaded **loaded, int depth);

static void load_import(Sema *S, Node *imp, SrcFile *from, Loaded **loaded, int depth)
{
    if (depth > 32) {
        sema_error(S, imp->loc, "imports nest more than 32 deep");
        return;
    }
    if (memchr(imp->str, 0, (size_t)imp->slen)) {
        sema_error(S, imp->loc, "import path contains a NUL character");
        return;
    }
    const char *path = find_import(S, imp->str, from->name);
    if (!path) {
        if (S->opts->confine_imports)
            sema_error(S, imp->loc,
                       "cannot find module \"%s\" inside the -I folders or the stdlib (imports are confined to them)",
                       imp->str);
        else
            sema_error(S, imp->loc, "cannot find module \"%s\" (searched -I folders, the stdlib and %s)", imp->str,
                       dir_of(S, from->name));
        return;
    }
    char rp[PATH_MAX];
    const char *key = realpath(path, rp) ? arena_strdup(S->arena, rp) : path;
    for (Loaded *l = *loaded; l; l = l->next)
        if (strcmp(l->realpath, key) == 0)
            return; /* already loaded (or being loaded: cycles are harmless) */
    Loaded *l = ARENA_NEW(S->arena, Loaded);
    l->realpath = key;
    l->next = *loaded;
    *loaded = l;
    size_t len;
    int err;
    char *text = rt_read_file(path, MAX_MODULE_BYTES, &len, &err);
    if (!text) {
        sema_error(S, imp->loc, "cannot read module \"%s\" at %s: %s", imp->str, path,
                   err == EINVAL  ? "it is not a regular file"
                   : err == EFBIG ? "it is larger than 64 MiB"
                                  : strerror(err));
        return;
    }
    SrcFile *sf = src_add(S->src, path, text, len);
    free(text);
    if (!sf) {
        sema_error(S, imp->loc, "module \"%s\" is too large", imp->str);
        return;
    }
    load_module(S, sf, loaded, depth + 1);
}

static bool load_module(Sema *S, SrcFile *f, Loaded **loaded, int depth)
{
    Node *m = parse_module(S->arena, S->strs, S->diags, f);
    if (!m)
        return false;
    for (int i = 0; i < m->list.n; i++) {
        Node *it = m->list.items[i];
        switch (it->kind) {
        case AST_IMPORT:
            load_import(S, it, f, loaded, depth);
            break;
        case AST_CONST:
            declare(S, it, BIND_CONST);
            break;
        case AST_FN:
            declare(S, it, BIND_FN);
            break;
        case AST_KERNEL:
            if (depth > 0)
                break; /* kernels of imported modules are not compiled */
            declare(S, it, BIND_KERNEL);
            break;
        default:
            break;
        }
    }
    return true;
}

/* ---- module consts ---- */

/* Evaluates an expression that must be a compile-time value, with a scratch insertion point so a
 * stray run-time expression emits nothing into a kernel. */
static SVal eval_static(Sema *S, Node *e, Scope *scope)
{
    Scope *saved_scope = S->scope;
    Builder saved_b = S->b;
    Frame *saved_frame = S->frame;
    Func *scratch = ARENA_NEW(S->arena, Func); /* never added to the module */
    scratch->module = S->module;
    scratch->name = "<const>";
    scratch->body = tir_block_new(scratch);
    tir_builder_at_end(&S->b, scratch->body);
    S->scope = scope;
    S->frame = NULL;
    SVal v = sema_eval_expr(S, e);
    S->scope = saved_scope;
    S->b = saved_b;
    S->frame = saved_frame;
    if (v.kind == SV_DYN)
        return sema_error(S, e->loc, "this must be a compile-time constant, but it depends on run-time values");
    return v;
}

SVal sema_eval_global(Sema *S, Binding *b, Loc use)
{
    if (b->evaluated)
        return b->val;
    if (b->evaluating) {
        b->val = sv_err();
        /* name the consts in between: A needs B needs A */
        const char *chain = "";
        for (Binding *c = S->const_top; c && c != b; c = c->outer_const)
            chain = arena_printf(S->arena, " '%s'%s%s", c->name, *chain ? "," : "", chain);
        return sema_error(S, use, "module const '%s' depends on itself%s%s%s", b->name, *chain ? " (through" : "",
                          chain, *chain ? ")" : "");
    }
    b->evaluating = true;
    b->outer_const = S->const_top;
    S->const_top = b;
    Node *d = b->decl;
    SVal v = eval_static(S, d->a, NULL);
    if (v.kind != SV_ERR && d->b) {
        const Type *t = sema_eval_type(S, d->b);
        if (!t)
            v = sv_err();
        else if (!sv_is_value(&v) || (v.kind == SV_CONST && sk_is_int(t->sk) && v.weak && sk_is_float(v.type->sk)))
            v = sema_error(S, d->a->loc, "module const '%s' is declared %s but its value is %s", b->name,
                           ty_str(S->arena, S->types, t), sv_describe(S, &v));
        else
            v = sema_convert_operand(S, v, t, d->a->loc);
    }
    b->evaluating = false;
    S->const_top = b->outer_const;
    b->evaluated = true;
    b->val = v;
    return v;
}

/* ---- const parameters, options and configs ---- */

static SVal cval_to_sval(Sema *S, CVal c)
{
    switch (c.kind) {
    case CV_INT:
        return sv_int(c.type ? c.type : ty_scalar(S->types, SK_I32), c.i);
    case CV_FLOAT:
        return sv_float(c.type ? c.type : ty_scalar(S->types, SK_F32), c.f);
    case CV_BOOL:
        return sv_bool(S, c.i != 0);
    default:
        return sv_typeval(c.type);
    }
}

static bool sval_to_cval(Sema *S, SVal v, CVal *out)
{
    memset(out, 0, sizeof *out);
    if (v.kind == SV_TYPE) {
        out->kind = CV_TYPE;
        out->type = v.type;
        return true;
    }
    if (v.kind != SV_CONST)
        return false;
    v = sv_harden(S, v);
    out->type = v.type;
    if (v.type->sk == SK_BOOL) {
        out->kind = CV_BOOL;
        out->i = v.c.i;
    } else if (sk_is_float(v.type->sk)) {
        out->kind = CV_FLOAT;
        out->f = v.c.f;
    } else {
        out->kind = CV_INT;
        out->i = v.c.i;
    }
    return true;
}

/* Parses a -D value for a const of type `want` (NULL: a type parameter). */
static bool parse_define(Sema *S, const char *text, const Type *want, bool is_type, SVal *out)
{
    if (is_type) {
        const char *t = text;
        int ptr = 0;
        while (*t == '*')
            t++, ptr++;
        int sk = sk_from_name(t);
        if (sk < 0)
            return false;
        const Type *ty = ty_scalar(S->types, (ScalarKind)sk);
        while (ptr--)
            ty = ty_ptr(S->types, ty);
        *out = sv_typeval(ty);
        return true;
    }
    if (want->sk == SK_BOOL) {
        if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0)
            *out = sv_bool(S, true);
        else if (strcmp(text, "false") == 0 || strcmp(text, "0") == 0)
            *out = sv_bool(S, false);
        else
            return false;
        return true;
    }
    char *end;
    if (sk_is_float(want->sk)) {
        double d = strtod(text, &end);
        if (*end || end == text)
            return false;
        *out = sv_float(want, d);
        return true;
    }
    long long v = strtoll(text, &end, 0);
    if (*end || end == text)
        return false;
    if (sema_norm_int(want->sk, v) != v)
        return false;
    *out = sv_int(want, v);
    return true;
}

static const Define *find_define(Sema *S, const char *name)
{
    const Define *found = NULL;
    for (int i = 0; i < S->opts->ndefines; i++)
        if (strcmp(S->opts->defines[i].name, name) == 0)
            found = &S->opts->defines[i]; /* the last one wins, as with a C compiler */
    return found;
}

static const ConfigEntry *find_config(const Config *c, const char *name)
{
    if (!c)
        return NULL;
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->entries[i].name, name) == 0)
            return &c->entries[i];
    return NULL;
}

static int *option_slot(KernelOptions *o, const char *name)
{
    if (strcmp(name, "num_warps") == 0)
        return &o->num_warps;
    if (strcmp(name, "num_stages") == 0)
        return &o->num_stages;
    if (strcmp(name, "waves_per_eu") == 0)
        return &o->waves_per_eu;
    if (strcmp(name, "matrix_instr_nonkdim") == 0)
        return &o->matrix_instr_nonkdim;
    if (strcmp(name, "kpack") == 0)
        return &o->kpack;
    return NULL;
}

/* Checks an option's value; the message names where it came from. */
static bool check_option(Sema *S, const char *name, int64_t v, Loc loc, const char *from)
{
    bool ok = true;
    const char *want = "";
    if (strcmp(name, "num_warps") == 0)
        ok = v >= 1 && v <= 16 && sema_is_pow2(v), want = "1, 2, 4, 8 or 16";
    else if (strcmp(name, "num_stages") == 0)
        ok = v >= 1 && v <= 8, want = "1 to 8";
    else if (strcmp(name, "waves_per_eu") == 0)
        ok = v >= 0 && v <= 8, want = "0 (no limit) to 8";
    else if (strcmp(name, "matrix_instr_nonkdim") == 0)
        ok = v == 16 || v == 32, want = "16 or 32";
    else if (strcmp(name, "kpack") == 0)
        ok = v == 1 || v == 2, want = "1 or 2";
    if (!ok) {
        if (loc.file)
            sema_error(S, loc, "%s must be %s, not %lld", name, want, (long long)v);
        else
            diag_plain(S->diags, DIAG_ERROR, "%s: %s must be %s, not %lld", from, name, want, (long long)v);
    }
    return ok;
}

static Node *find_attr(Node *k, const char *name)
{
    for (int i = 0; i < k->list2.n; i++)
        if (strcmp(k->list2.items[i]->name, name) == 0)
            return k->list2.items[i];
    return NULL;
}

static void apply_options_attr(Sema *S, Node *attr, KernelOptions *o)
{
    for (int i = 0; i < attr->list.n; i++) {
        Node *a = attr->list.items[i];
        if (a->kind != AST_NAMED) {
            sema_error(S, a->loc, "@options takes named values, such as num_warps = 8");
            continue;
        }
        int *slot = option_slot(o, a->name);
        if (!slot) {
            sema_error(S, a->loc, "unknown option '%s' (num_warps, num_stages, waves_per_eu, matrix_instr_nonkdim, kpack)",
                       a->name);
            continue;
        }
        int64_t v;
        SVal sv = eval_static(S, a->a, NULL);
        if (sv_const_int(S, sv, a->a->loc, a->name, &v) && check_option(S, a->name, v, a->a->loc, ""))
            *slot = (int)v;
    }
}

/* ---- @autotune ---- */

typedef struct ConstParam {
    Node *node;
    const char *name;
    const Type *type; /* NULL for a type parameter */
    bool is_type;
    SVal value;
} ConstParam;

typedef struct KernelCtx {
    Node *k;
    ConstParam *cps;
    int ncps;
    Node **rparams; /* run-time parameters */
    int nrparams;
} KernelCtx;

static ConstParam *find_cp(KernelCtx *kc, const char *name)
{
    for (int i = 0; i < kc->ncps; i++)
        if (strcmp(kc->cps[i].name, name) == 0)
            return &kc->cps[i];
    return NULL;
}

static Node *find_rparam(KernelCtx *kc, const char *name)
{
    for (int i = 0; i < kc->nrparams; i++)
        if (strcmp(kc->rparams[i]->name, name) == 0)
            return kc->rparams[i];
    return NULL;
}

/* Checks one tuning value and turns it into a config entry. */
static bool tune_entry(Sema *S, KernelCtx *kc, const char *name, SVal v, Loc loc, ConfigEntry *out)
{
    out->name = name;
    ConstParam *cp = find_cp(kc, name);
    if (!cp && !sema_is_option(name)) {
        sema_error(S, loc, "'%s' in @autotune is neither a const parameter of kernel '%s' nor a compile option",
                   name, kc->k->name);
        return false;
    }
    if (v.kind == SV_ERR)
        return false;
    if (cp && cp->is_type) {
        if (v.kind != SV_TYPE) {
            sema_error(S, loc, "'%s' is a type parameter: its values must be types, not %s", name, sv_describe(S, &v));
            return false;
        }
    } else {
        const Type *want = cp ? cp->type : ty_scalar(S->types, SK_I32);
        if (v.kind != SV_CONST || (sk_is_int(want->sk) && sk_is_float(v.type->sk)) ||
            ((want->sk == SK_BOOL) != (v.type->sk == SK_BOOL))) {
            sema_error(S, loc, "'%s' takes %s values, not %s", name, ty_str(S->arena, S->types, want),
                       sv_describe(S, &v));
            return false;
        }
        v = sema_convert_operand(S, v, want, loc);
        if (!cp && !check_option(S, name, v.c.i, loc, ""))
            return false;
    }
    return sval_to_cval(S, v, &out->value);
}

static bool eval_where(Sema *S, KernelCtx *kc, Node *where, Config *c)
{
    Scope sc = {0};
    for (int i = 0; i < kc->ncps; i++)
        sema_bind(S, &sc, kc->cps[i].node->name, BIND_LET, kc->cps[i].value, kc->cps[i].node->loc);
    static const char *const optnames[] = {"num_warps", "num_stages", "waves_per_eu", "matrix_instr_nonkdim", "kpack"};
    static const int optdefaults[] = {4, 2, 0, 16, 1};
    for (int i = 0; i < 5; i++)
        sema_bind(S, &sc, str_intern0(S->strs, optnames[i]), BIND_LET, sv_weak_int(S, optdefaults[i]), where->loc);
    for (int i = 0; i < c->n; i++)
        sema_bind(S, &sc, str_intern0(S->strs, c->entries[i].name), BIND_LET, cval_to_sval(S, c->entries[i].value),
             where->loc);
    SVal v = eval_static(S, where, &sc);
    if (v.kind == SV_ERR)
        return false;
    if (v.kind != SV_CONST || v.type->sk != SK_BOOL) {
        sema_error(S, where->loc, "the where of @autotune must be a bool, not %s", sv_describe(S, &v));
        return false;
    }
    return v.c.i != 0;
}

static bool names_list(Sema *S, Node *list, const char *what, KernelCtx *kc, bool pointers, const char ***out, int *n)
{
    if (list->kind != AST_LIST) {
        sema_error(S, list->loc, "%s of @autotune must be a list of parameter names", what);
        return false;
    }
    *out = ARENA_ARRAY(S->arena, const char *, list->list.n + 1);
    *n = 0;
    for (int i = 0; i < list->list.n; i++) {
        Node *e = list->list.items[i];
        Node *p = e->kind == AST_NAME ? find_rparam(kc, e->name) : NULL;
        if (!p) {
            sema_error(S, e->loc, "%s of @autotune must name run-time parameters of kernel '%s'", what, kc->k->name);
            return false;
        }
        if (pointers && p->a->kind != AST_TYPE_PTR) {
            sema_error(S, e->loc, "reset of @autotune names output buffers, but '%s' is not a pointer", e->name);
            return false;
        }
        (*out)[(*n)++] = e->name;
    }
    return true;
}

enum { MAX_TUNE_CONFIGS = 4096 };

static bool parse_autotune(Sema *S, KernelCtx *kc, Node *attr, KernelMeta *meta)
{
    Node *space = NULL, *where = NULL, *configs = NULL;
    meta->has_autotune = true;
    for (int i = 0; i < attr->list.n; i++) {
        Node *a = attr->list.items[i];
        if (a->kind != AST_NAMED) {
            sema_error(S, a->loc, "@autotune takes named arguments: key, space, where, configs, reset");
            return false;
        }
        if (strcmp(a->name, "key") == 0) {
            if (!names_list(S, a->a, "key", kc, false, &meta->tune_key, &meta->ntune_key))
                return false;
        } else if (strcmp(a->name, "reset") == 0) {
            if (!names_list(S, a->a, "reset", kc, true, &meta->tune_reset, &meta->ntune_reset))
                return false;
        } else if (strcmp(a->name, "space") == 0) {
            space = a->a;
        } else if (strcmp(a->name, "where") == 0) {
            where = a->a;
        } else if (strcmp(a->name, "configs") == 0) {
            configs = a->a;
        } else {
            sema_error(S, a->loc, "unknown @autotune argument '%s' (key, space, where, configs, reset)", a->name);
            return false;
        }
    }
    PtrVec out = {0};
    if (space) {
        if (space->kind != AST_DICT) {
            sema_error(S, space->loc, "space of @autotune must be a dict such as {BLOCK_M: [64, 128]}");
            return false;
        }
        int nd = space->list.n;
        SVal *lists = ARENA_ARRAY(S->arena, SVal, nd + 1);
        int64_t total = 1;
        for (int d = 0; d < nd; d++) {
            Node *ent = space->list.items[d];
            lists[d] = eval_static(S, ent->a, NULL);
            if (lists[d].kind == SV_ERR)
                return false;
            if (lists[d].kind != SV_LIST || lists[d].n == 0) {
                sema_error(S, ent->a->loc, "the values of '%s' in @autotune must be a non-empty list", ent->name);
                return false;
            }
            total *= lists[d].n;
            if (total > MAX_TUNE_CONFIGS) {
                sema_error(S, space->loc, "the @autotune space has more than %d configs", MAX_TUNE_CONFIGS);
                return false;
            }
        }
        int *idx = ARENA_ARRAY(S->arena, int, nd + 1);
        for (int64_t c = 0; c < total; c++) {
            /* the last entry varies fastest, like itertools.product */
            int64_t r = c;
            for (int d = nd - 1; d >= 0; d--) {
                idx[d] = (int)(r % lists[d].n);
                r /= lists[d].n;
            }
            Config *cfg = ARENA_NEW(S->arena, Config);
            cfg->entries = ARENA_ARRAY(S->arena, ConfigEntry, nd + 1);
            for (int d = 0; d < nd; d++) {
                Node *ent = space->list.items[d];
                if (!tune_entry(S, kc, ent->name, lists[d].items[idx[d]], ent->a->loc, &cfg->entries[cfg->n++]))
                    return false;
            }
            if (where) {
                int errs = S->diags->nerrors;
                bool keep = eval_where(S, kc, where, cfg);
                if (S->diags->nerrors != errs)
                    return false;
                if (!keep)
                    continue;
            }
            ptrvec_push(S->arena, &out, cfg);
        }
    }
    if (configs) {
        if (configs->kind != AST_LIST) {
            sema_error(S, configs->loc, "configs of @autotune must be a list of dicts");
            return false;
        }
        for (int i = 0; i < configs->list.n; i++) {
            Node *d = configs->list.items[i];
            if (d->kind != AST_DICT) {
                sema_error(S, d->loc, "each config of @autotune must be a dict such as {BLOCK_M: 64}");
                return false;
            }
            Config *cfg = ARENA_NEW(S->arena, Config);
            cfg->entries = ARENA_ARRAY(S->arena, ConfigEntry, d->list.n + 1);
            for (int e = 0; e < d->list.n; e++) {
                Node *ent = d->list.items[e];
                SVal v = eval_static(S, ent->a, NULL);
                if (!tune_entry(S, kc, ent->name, v, ent->a->loc, &cfg->entries[cfg->n++]))
                    return false;
            }
            ptrvec_push(S->arena, &out, cfg);
        }
    }
    if (out.n == 0) {
        sema_error(S, attr->loc, "@autotune leaves no config to try (check its space and where)");
        return false;
    }
    meta->ntune = out.n;
    meta->tune_configs = ARENA_ARRAY(S->arena, Config, out.n + 1);
    for (int i = 0; i < out.n; i++)
        meta->tune_configs[i] = *(Config *)out.items[i];
    return true;
}

/* ---- kernels ---- */

static bool resolve_consts(Sema *S, KernelCtx *kc, bool *used_defines)
{
    bool ok = true;
    Scope sc = {0}; /* earlier const parameters are visible to later defaults */
    for (int i = 0; i < kc->ncps; i++) {
        ConstParam *cp = &kc->cps[i];
        Node *p = cp->node;
        cp->value.kind = SV_UNINIT;
        if (p->a->kind == AST_TYPE_NAME && strcmp(p->a->name, "type") == 0) {
            cp->is_type = true;
        } else {
            Scope *saved = S->scope;
            S->scope = &sc;
            cp->type = sema_eval_type(S, p->a);
            S->scope = saved;
            if (!cp->type) {
                ok = false;
                continue;
            }
            if (cp->type->kind != TY_SCALAR) {
                sema_error(S, p->a->loc, "const parameter '%s' must be a scalar or a type, not %s", cp->name,
                           ty_str(S->arena, S->types, cp->type));
                ok = false;
                continue;
            }
        }
        const ConfigEntry *ce = find_config(S->config, cp->name);
        const Define *d = find_define(S, cp->name);
        if (ce) {
            cp->value = cval_to_sval(S, ce->value);
        } else if (d) {
            for (int k = 0; k < S->opts->ndefines; k++)
                if (strcmp(S->opts->defines[k].name, cp->name) == 0)
                    used_defines[k] = true;
            if (!parse_define(S, d->value, cp->type, cp->is_type, &cp->value)) {
                diag_plain(S->diags, DIAG_ERROR, "-D %s=%s: expected %s for const parameter '%s' of kernel '%s'",
                           d->name, d->value, cp->is_type ? "a type such as f16" : ty_str(S->arena, S->types, cp->type),
                           cp->name, kc->k->name);
                ok = false;
                continue;
            }
        } else if (p->b) {
            SVal v = eval_static(S, p->b, &sc);
            if (v.kind == SV_ERR) {
                ok = false;
                continue;
            }
            if (cp->is_type) {
                if (v.kind != SV_TYPE) {
                    sema_error(S, p->b->loc, "the default of type parameter '%s' must be a type, not %s", cp->name,
                               sv_describe(S, &v));
                    ok = false;
                    continue;
                }
            } else if (v.kind != SV_CONST || (sk_is_int(cp->type->sk) && sk_is_float(v.type->sk)) ||
                       ((cp->type->sk == SK_BOOL) != (v.type->sk == SK_BOOL))) {
                sema_error(S, p->b->loc, "the default of '%s' must be %s, not %s", cp->name,
                           ty_str(S->arena, S->types, cp->type), sv_describe(S, &v));
                ok = false;
                continue;
            } else {
                v = sema_convert_operand(S, v, cp->type, p->b->loc);
            }
            cp->value = v;
        }
        if (cp->value.kind != SV_UNINIT)
            sema_bind(S, &sc, p->name, BIND_LET, cp->value, p->loc);
    }
    return ok;
}

static bool compile_kernel(Sema *S, Node *k, KernelMeta *meta, bool *used_defines)
{
    int errs0 = S->diags->nerrors;
    S->kernel = k;
    S->work = 0;
    memset(meta, 0, sizeof *meta);
    meta->name = k->name;
    KernelCtx kc = {0};
    kc.k = k;
    /* At most MAX_KERNEL_PARAMS parameters (tir.h says why), refused at the first one too many */
    if (k->list.n > MAX_KERNEL_PARAMS) {
        sema_error(S, k->list.items[MAX_KERNEL_PARAMS]->loc, "kernel '%s' has more than %d parameters",
                   k->name, MAX_KERNEL_PARAMS);
        return false;
    }
    kc.cps = ARENA_ARRAY(S->arena, ConstParam, k->list.n + 1);
    kc.rparams = ARENA_ARRAY(S->arena, Node *, k->list.n + 1);
    for (int i = 0; i < k->list.n; i++) {
        Node *p = k->list.items[i];
        for (int j = 0; j < i; j++)
            if (k->list.items[j]->name == p->name)
                sema_error(S, p->loc, "kernel '%s' has two parameters named '%s'", k->name, p->name);
        if (!p->a) {
            sema_error(S, p->loc, "kernel parameter '%s' needs a type", p->name);
            continue;
        }
        if (p->flags & AST_FLAG_CONST)
            kc.cps[kc.ncps++] = (ConstParam){p, p->name, NULL, false, sv_void()};
        else
            kc.rparams[kc.nrparams++] = p;
    }
    if (!resolve_consts(S, &kc, used_defines))
        return false;
    /* options: defaults < @options < -D < config */
    KernelOptions o = {4, 2, 0, 16, 1};
    for (int i = 0; i < k->list2.n; i++) {
        Node *at = k->list2.items[i];
        if (strcmp(at->name, "options") == 0)
            apply_options_attr(S, at, &o);
        else if (strcmp(at->name, "grid") != 0 && strcmp(at->name, "autotune") != 0 &&
                 strcmp(at->name, "no_specialize") != 0 && strcmp(at->name, "flops") != 0 &&
                 strcmp(at->name, "bytes") != 0)
            sema_error(S, at->loc,
                       "unknown attribute '@%s' (known: @grid, @options, @autotune, @no_specialize, @flops, @bytes)",
                       at->name);
    }
    static const char *const optnames[] = {"num_warps", "num_stages", "waves_per_eu", "matrix_instr_nonkdim", "kpack"};
    for (int i = 0; i < 5; i++) {
        const Define *d = find_define(S, optnames[i]);
        const ConfigEntry *ce = find_config(S->config, optnames[i]);
        int64_t v;
        char *end = NULL;
        if (ce) {
            v = ce->value.i;
        } else if (d) {
            v = strtoll(d->value, &end, 0);
            if (*end || end == d->value) {
                diag_plain(S->diags, DIAG_ERROR, "-D %s=%s: expected an integer", d->name, d->value);
                continue;
            }
        } else {
            continue;
        }
        if (check_option(S, optnames[i], v, loc_make(0, 0),
                         ce ? "an autotune config" : arena_printf(S->arena, "-D %s=%s", d->name, d->value)))
            *option_slot(&o, optnames[i]) = (int)v;
    }
    Node *tune = find_attr(k, "autotune");
    if (tune && !parse_autotune(S, &kc, tune, meta))
        return false;
    /* Const parameters still without a value take the first tuning config's. */
    for (int i = 0; i < kc.ncps; i++) {
        ConstParam *cp = &kc.cps[i];
        if (cp->value.kind != SV_UNINIT)
            continue;
        const ConfigEntry *ce = meta->ntune ? find_config(&meta->tune_configs[0], cp->name) : NULL;
        if (ce) {
            cp->value = cval_to_sval(S, ce->value);
            continue;
        }
        sema_error(S, cp->node->loc, "const parameter '%s' of kernel '%s' has no value: give it a default, "
                   "-D %s=..., or an @autotune config", cp->name, k->name, cp->name);
        return false;
    }
    if (S->diags->nerrors != errs0)
        return false;
    meta->opts = o;
    meta->consts.n = kc.ncps;
    meta->consts.entries = ARENA_ARRAY(S->arena, ConfigEntry, kc.ncps + 1);
    for (int i = 0; i < kc.ncps; i++) {
        meta->consts.entries[i].name = kc.cps[i].name;
        sval_to_cval(S, kc.cps[i].value, &meta->consts.entries[i].value);
    }
    /* The kernel function: run-time parameters are its arguments. */
    Func *f = tir_func_new(S->module, FUNC_KERNEL, k->name);
    f->opts = o;
    f->pos = sema_pos(S, k->loc);
    S->kopts = o;
    Scope ksc = {0};
    for (int i = 0; i < kc.ncps; i++)
        sema_bind(S, &ksc, kc.cps[i].name, BIND_LET, kc.cps[i].value, kc.cps[i].node->loc)->role = "a const parameter";
    meta->params = ARENA_ARRAY(S->arena, ParamMeta, kc.nrparams + 1);
    Scope *saved = S->scope;
    S->scope = &ksc;
    for (int i = 0; i < kc.nrparams; i++) {
        Node *p = kc.rparams[i];
        const Type *t = sema_eval_type(S, p->a);
        if (!t)
            continue;
        if (t->kind == TY_TILE) {
            sema_error(S, p->a->loc, "kernel parameter '%s' cannot be a tile; pass a pointer", p->name);
            continue;
        }
        if (t->kind == TY_PTR && t->pointee->sk == SK_BOOL) {
            sema_error(S, p->a->loc, "kernel parameter '%s': pointers to bool are not supported; use *i8 or *u8", p->name);
            continue;
        }
        Value *v = tir_block_add_arg(f->body, t, p->name);
        (void)v;
        meta->params[meta->nparams++] = (ParamMeta){p->name, t->kind == TY_PTR ? PARAM_POINTER : PARAM_SCALAR, t, false};
    }
    S->scope = saved;
    for (int i = 0; i < k->list2.n; i++)
        if (strcmp(k->list2.items[i]->name, "no_specialize") == 0)
            sema_no_specialize(S, k, k->list2.items[i], meta);
    if (S->diags->nerrors != errs0)
        return false;
    /* The parameters' values: the arguments, or what the facts of this variant make of them. */
    tir_builder_at_end(&S->b, f->body);
    S->b.pos = f->pos;
    SVal *pvals = ARENA_ARRAY(S->arena, SVal, f->body->nargs + 1);
    for (int i = 0; i < f->body->nargs; i++)
        pvals[i] = sv_dyn(&f->body->args[i]);
    meta->facts = sema_apply_facts(S, k, f, meta, pvals);
    if (S->diags->nerrors != errs0)
        return false;
    for (int i = 0; i < f->body->nargs; i++)
        sema_bind(S, &ksc, f->body->args[i].name, BIND_LET, pvals[i], kc.rparams[i]->loc)->role = "a kernel parameter";
    /* The body, in the kernel frame (which holds the return flag). */
    S->scope = NULL;
    sema_push_scope(S, &ksc);
    Scope body = {0};
    sema_push_scope(S, &body);
    Frame fr = {0};
    fr.ret = sema_bind(S, &body, "<return>", BIND_HIDDEN, sv_bool(S, false), k->loc);
    S->frame = &fr;
    sema_emit_block(S, k->b, NULL);
    S->frame = NULL;
    S->scope = saved;
    b_op(&S->b, OP_RETURN, NULL, 0, NULL, 0);
    /* @grid: a function of the same arguments returning the three grid sizes. */
    Node *grid = find_attr(k, "grid");
    if (grid) {
        if (grid->list.n < 1 || grid->list.n > 3) {
            sema_error(S, grid->loc, "@grid takes 1 to 3 sizes, got %d", grid->list.n);
            return false;
        }
        Func *g = tir_func_new(S->module, FUNC_GRID, k->name);
        g->pos = f->pos;
        Scope gsc = {0};
        for (int i = 0; i < kc.ncps; i++)
            sema_bind(S, &gsc, kc.cps[i].name, BIND_LET, kc.cps[i].value, kc.cps[i].node->loc);
        for (int i = 0; i < f->body->nargs; i++)
            tir_block_add_arg(g->body, f->body->args[i].type, f->body->args[i].name);
        for (int i = 0; i < g->body->nargs; i++) /* after adding them all: adding moves arguments */
            sema_bind(S, &gsc, g->body->args[i].name, BIND_LET, sv_dyn(&g->body->args[i]), kc.rparams[i]->loc);
        tir_builder_at_end(&S->b, g->body);
        S->scope = NULL;
        sema_push_scope(S, &gsc);
        Value *sizes[3];
        const Type *i32 = ty_scalar(S->types, SK_I32);
        for (int i = 0; i < 3; i++) {
            if (i >= grid->list.n) {
                sizes[i] = b_const_int(&S->b, i32, 1);
                continue;
            }
            Node *e = grid->list.items[i];
            SVal v = e->kind == AST_NAMED ? sema_error(S, e->loc, "@grid takes sizes, not named arguments")
                                          : sema_eval_expr(S, e);
            if (v.kind == SV_ERR)
                break;
            const Type *t = sv_type(S, &v);
            if (!t || t->kind != TY_SCALAR || !sk_is_int(t->sk)) {
                sema_error(S, e->loc, "a @grid size must be a scalar integer, not %s", sv_describe(S, &v));
                break;
            }
            v = sema_convert_operand(S, v, i32, e->loc);
            if (v.kind == SV_ERR)
                break;
            sizes[i] = sema_materialize(S, v, e->loc);
        }
        S->scope = saved;
        if (S->diags->nerrors != errs0)
            return false;
        b_op(&S->b, OP_RETURN, NULL, 0, sizes, 3);
        meta->has_grid = true;
    }
    /* @flops(e), @bytes(e): an integer expression of the run-time scalar and const parameters, built in a
     * scratch function of the parameters, turned into a formula (work_formula) and dropped. */
    for (int wk = 0; wk < 2; wk++) {
        const char *what = wk ? "bytes" : "flops";
        Node *at = find_attr(k, what);
        if (!at)
            continue;
        if (at->list.n != 1 || at->list.items[0]->kind == AST_NAMED) {
            sema_error(S, at->loc, "@%s takes one expression, the launch's %s", what,
                       wk ? "bytes of global memory" : "floating-point operations");
            return false;
        }
        Func *g = tir_func_new(S->module, FUNC_GRID, k->name);
        Scope gsc = {0};
        for (int i = 0; i < kc.ncps; i++)
            sema_bind(S, &gsc, kc.cps[i].name, BIND_LET, kc.cps[i].value, kc.cps[i].node->loc);
        for (int i = 0; i < f->body->nargs; i++)
            tir_block_add_arg(g->body, f->body->args[i].type, f->body->args[i].name);
        for (int i = 0; i < g->body->nargs; i++)
            sema_bind(S, &gsc, g->body->args[i].name, BIND_LET, sv_dyn(&g->body->args[i]), kc.rparams[i]->loc);
        tir_builder_at_end(&S->b, g->body);
        S->scope = NULL;
        sema_push_scope(S, &gsc);
        Node *e = at->list.items[0];
        SVal v = sema_eval_expr(S, e);
        const char *formula = NULL;
        if (v.kind != SV_ERR) {
            const Type *t = sv_type(S, &v);
            if (!t || t->kind != TY_SCALAR || !sk_is_int(t->sk))
                sema_error(S, e->loc, "@%s must be a scalar integer, not %s", what, sv_describe(S, &v));
            else if (!(formula = work_formula(S->arena, g, sema_materialize(S, v, e->loc))))
                sema_error(S, e->loc, "@%s must be integer arithmetic (+ - * / %% min max cdiv) of the run-time "
                                      "scalar parameters and constants", what);
        }
        S->scope = saved;
        S->module->nfuncs--; /* the scratch function is not part of the module */
        if (S->diags->nerrors != errs0)
            return false;
        *(wk ? &meta->user_bytes : &meta->user_flops) = formula;
    }
    return S->diags->nerrors == errs0;
}

bool sema_compile(Arena *a, StrTab *strs, TypeTab *types, SrcMgr *src, Diags *diags, SrcFile *main_file,
                  const SemaOptions *opts, const Config *config, SemaResult *out)
{
    static const SemaOptions no_opts = {0};
    Sema S;
    memset(&S, 0, sizeof S);
    S.arena = a;
    S.strs = strs;
    S.types = types;
    S.src = src;
    S.diags = diags;
    S.opts = opts ? opts : &no_opts;
    S.config = config;
    S.module = tir_module_new(a, types, strs);
    S.globals = ARENA_NEW(a, Scope);
    memset(out, 0, sizeof *out);
    out->module = S.module;
    int errs0 = diags->nerrors;
    Loaded *loaded = ARENA_NEW(a, Loaded);
    char rp[PATH_MAX];
    loaded->realpath = realpath(main_file->name, rp) ? arena_strdup(a, rp) : main_file->name;
    if (!load_module(&S, main_file, &loaded, 0) || diags->nerrors != errs0)
        return false;
    /* Kernels in source order (globals are prepended as they are declared). */
    int nk = 0;
    for (Binding *b = S.globals->first; b; b = b->next)
        nk += b->kind == BIND_KERNEL;
    Node **ks = ARENA_ARRAY(a, Node *, nk + 1);
    int i = nk;
    for (Binding *b = S.globals->first; b; b = b->next)
        if (b->kind == BIND_KERNEL)
            ks[--i] = b->decl;
    if (!sema_parse_facts(&S))
        return false;
    bool *used = ARENA_ARRAY(a, bool, S.opts->ndefines + 1);
    for (int d = 0; d < S.opts->ndefines; d++)
        used[d] = sema_is_option(S.opts->defines[d].name);
    out->kernels = ARENA_ARRAY(a, KernelMeta, nk + 1);
    bool found = !S.opts->only_kernel;
    for (int k = 0; k < nk; k++) {
        if (S.opts->only_kernel && strcmp(S.opts->only_kernel, ks[k]->name) != 0)
            continue;
        found = true;
        if (compile_kernel(&S, ks[k], &out->kernels[out->nkernels], used))
            out->nkernels++;
    }
    if (nk == 0 && !S.opts->only_kernel) /* an empty file, a module of fns: a code object of nothing */
        diag_plain(diags, DIAG_WARNING, "%s has no kernel: the code object holds none", main_file->name);
    if (!found) {
        char names[512] = "";
        size_t len = 0;
        for (int k = 0; k < nk && len < sizeof names; k++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "", ks[k]->name);
        diag_plain(diags, DIAG_ERROR, "no kernel named '%s' in %s (kernels: %s)", S.opts->only_kernel,
                   main_file->name, nk ? names : "none");
    }
    for (int d = 0; d < S.opts->ndefines; d++)
        if (!used[d])
            diag_plain(diags, DIAG_ERROR, "-D %s: no kernel in %s has a const parameter or option named '%s'",
                       S.opts->defines[d].name, main_file->name, S.opts->defines[d].name);
    if (found && out->nkernels == (S.opts->only_kernel ? 1 : nk))
        sema_check_facts(&S, main_file->name);
    return diags->nerrors == errs0;
}
