/* Specialisation on run-time parameters: @no_specialize, and the facts a variant is compiled with
 * (SemaOptions.assume: rkc --assume, or the runtime's facts of a launch).
 *
 * A fact becomes exactly what the source could have said: `K%16==0` is `multiple_of(K, 16)` applied to
 * the parameter where the body first sees it (a hint op at the top of the kernel, so every use reads
 * the hinted value), `stride==1` binds the name to the constant 1 of the parameter's type, which sema
 * then folds as it folds any constant. The axis analysis needs nothing new: it reads the hint.
 * `x<2G` on a pointer parameter sets its bit in Func.range32, which the lowering reads. */
#include <stdio.h>
#include <string.h>

#include "compiler/sema/sema_internal.h"
#include "support/facts.h"

static int param_index(const KernelMeta *meta, const char *name)
{
    for (int j = 0; j < meta->nparams; j++)
        if (strcmp(meta->params[j].name, name) == 0)
            return j;
    return -1;
}

void sema_no_specialize(Sema *S, Node *k, Node *at, KernelMeta *meta)
{
    if (at->list.n == 0)
        sema_error(S, at->loc, "@no_specialize takes the names of run-time parameters of kernel '%s'", k->name);
    for (int i = 0; i < at->list.n; i++) {
        Node *e = at->list.items[i];
        if (e->kind != AST_NAME) {
            sema_error(S, e->loc, "@no_specialize takes parameter names");
            continue;
        }
        int j = param_index(meta, e->name);
        if (j >= 0) {
            meta->params[j].no_specialize = true;
            continue;
        }
        bool is_const = false;
        for (int p = 0; p < k->list.n; p++)
            is_const |= strcmp(k->list.items[p]->name, e->name) == 0;
        if (is_const)
            sema_error(S, e->loc, "@no_specialize: '%s' is a const parameter of kernel '%s' (only run-time "
                       "parameters are specialised)", e->name, k->name);
        else
            sema_error(S, e->loc, "@no_specialize: kernel '%s' has no parameter named '%s'", k->name, e->name);
    }
}

bool sema_parse_facts(Sema *S)
{
    char why[256];
    int n = facts_parse(S->opts->assume, NULL, 0, why, sizeof why);
    if (n < 0) {
        diag_plain(S->diags, DIAG_ERROR, "--assume: %s", why);
        return false;
    }
    S->facts = ARENA_ARRAY(S->arena, Fact, n + 1);
    S->fact_used = ARENA_ARRAY(S->arena, bool, n + 1);
    S->nfacts = facts_parse(S->opts->assume, S->facts, n, why, sizeof why);
    return true;
}

const char *sema_apply_facts(Sema *S, Node *k, Func *f, KernelMeta *meta, SVal *vals)
{
    int n = S->nfacts;
    const Fact *fs = S->facts;
    const char *text = "";
    for (int j = 0; j < meta->nparams && n > 0; j++) {
        const ParamMeta *pm = &meta->params[j];
        const Type *t = pm->type;
        for (int i = 0; i < n; i++) {
            const Fact *fa = &fs[i];
            if (!facts_is(fa, pm->name))
                continue;
            S->fact_used[i] = true;
            char buf[300];
            const char *spelt = arena_strdup(S->arena, facts_spell(buf, sizeof buf, pm->name, (int)strlen(pm->name),
                                                                   fa->kind, fa->n));
            bool ptr = pm->kind == PARAM_POINTER;
            if (fa->kind == FACT_RANGE32) {
                if (!ptr) {
                    diag_plain(S->diags, DIAG_ERROR,
                               "--assume %s: parameter '%s' of kernel '%s' is %s; '<2G' is a fact about a pointer",
                               spelt, pm->name, k->name, ty_str(S->arena, S->types, t));
                    continue;
                }
                if (j < 64)
                    f->range32 |= (uint64_t)1 << j;
                text = arena_printf(S->arena, "%s%s%s", text, *text ? " " : "", spelt);
                continue;
            }
            if (!ptr && !ty_is_int(t)) {
                diag_plain(S->diags, DIAG_ERROR,
                           "--assume %s: parameter '%s' of kernel '%s' is %s; facts apply to integers and pointers",
                           spelt, pm->name, k->name, ty_str(S->arena, S->types, t));
                continue;
            }
            if (ptr && fa->kind == FACT_EQ) {
                diag_plain(S->diags, DIAG_ERROR,
                           "--assume %s: parameter '%s' of kernel '%s' is a pointer; a pointer takes only an "
                           "alignment (%s%%16==0) or a range (%s<2G)", spelt, pm->name, k->name, pm->name, pm->name);
                continue;
            }
            if (fa->kind == FACT_EQ) {
                if (sema_norm_int(t->sk, fa->n) != fa->n) {
                    diag_plain(S->diags, DIAG_ERROR, "--assume %s: %lld does not fit in '%s' (%s)", spelt,
                               (long long)fa->n, pm->name, ty_str(S->arena, S->types, t));
                    continue;
                }
                vals[j] = sv_int(t, fa->n);
            } else if (vals[j].kind == SV_DYN) {
                Value *v = b_op1(&S->b, OP_HINT, vals[j].v->type, vals[j].v);
                v->def->at.kind = KIND_MULTIPLE_OF;
                v->def->at.n = fa->n;
                vals[j] = sv_dyn(v);
            }
            text = arena_printf(S->arena, "%s%s%s", text, *text ? " " : "", spelt);
        }
    }
    return text;
}

void sema_check_facts(Sema *S, const char *file)
{
    for (int i = 0; i < S->nfacts; i++)
        if (!S->fact_used[i])
            diag_plain(S->diags, DIAG_ERROR, "--assume: no kernel in %s has a run-time parameter named '%.*s'", file,
                       S->facts[i].namelen, S->facts[i].name);
}
