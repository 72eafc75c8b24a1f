/* cp.async for emu_sm90 code: a lane's asynchronous copies from global memory to its workgroup's LDS,
 * grouped by cp.async.commit_group and completed by cp.async.wait_group.
 *
 * The emulator makes the asynchrony visible instead of hiding it: at issue, both addresses are checked
 * and the destination is filled with the LDS poison; the source is read, and the bytes land, only when
 * the issuing lane waits on the copy's group. A kernel that reads a stage buffer before waiting for it
 * (or, from another lane, before the barrier that follows the owner's wait) reads poison, and a kernel
 * that overwrites a source before the copy completes sees the new value land: both are bugs on the GPU
 * too, where the outcome depends on timing. Copies complete in issue order; a lane's pending copies are
 * dropped when its workgroup ends (none of rk's kernels leaves one pending).
 *
 * Groups, from the PTX ISA (cp.async.commit_group, cp.async.wait_group): the copies a lane issued since
 * its last commit form a group when it commits; wait_group n completes every committed group but the n
 * most recent. Copies not yet committed belong to no group and are not completed. */
#include <stdlib.h>
#include <string.h>

#include "runtime/emu/emu_internal.h"

enum { CP_FIRST_CAP = 16 };

void emu_op_cp_async(EmuLane *el, void *dst, const void *src, int32_t bytes, int32_t src_bytes, const char *site)
{
    Lane *l = (Lane *)el;
    if (bytes != 4 && bytes != 8 && bytes != 16)
        emu_lane_fail(l, EMU_ERR_INVALID, "cp.async of %d bytes (4, 8 or 16)", bytes);
    if (src_bytes < 0 || src_bytes > bytes)
        emu_lane_fail(l, EMU_ERR_INVALID, "cp.async of %d bytes with a source size of %d", bytes, src_bytes);
    /* the PTX ISA: both operands aligned to the copy size (checked first: the message names the copy) */
    if ((uintptr_t)dst % (uintptr_t)bytes || (src_bytes > 0 && (uintptr_t)src % (uintptr_t)bytes))
        emu_lane_fail(l, EMU_ERR_ACCESS, "cp.async of %d bytes from %p to LDS offset %td: misaligned%s%s", bytes, src,
                      (char *)dst - el->lds, site ? " at " : "", site ? site : "");
    el->fns->check(el, dst, (uint64_t)bytes, EMU_ACCESS_STORE | EMU_ACCESS_LDS, site);
    if (src_bytes > 0)
        el->fns->check(el, src, (uint64_t)src_bytes, EMU_ACCESS_LOAD, site);
    if (l->cp_n == l->cp_cap) {
        if (l->cp_head > 0) { /* reuse the completed prefix */
            memmove(l->cp, l->cp + l->cp_head, (size_t)(l->cp_n - l->cp_head) * sizeof *l->cp);
            l->cp_n -= l->cp_head;
            l->cp_head = 0;
        } else {
            uint32_t cap = l->cp_cap ? 2 * l->cp_cap : CP_FIRST_CAP;
            CpCopy *cp = cap > l->cp_cap ? realloc(l->cp, (size_t)cap * sizeof *cp) : NULL;
            if (!cp)
                emu_lane_fail(l, EMU_ERR_NOMEM, "out of memory for pending cp.async copies");
            l->cp = cp;
            l->cp_cap = cap;
        }
    }
    l->cp[l->cp_n++] = (CpCopy){dst, src, l->cp_groups, (uint8_t)bytes, (uint8_t)src_bytes};
    memset(dst, EMU_LDS_POISON, (size_t)bytes);
}

void emu_op_cp_async_commit(EmuLane *el)
{
    Lane *l = (Lane *)el;
    l->cp_groups++;
}

void emu_op_cp_async_wait(EmuLane *el, int32_t n)
{
    Lane *l = (Lane *)el;
    if (n < 0)
        emu_lane_fail(l, EMU_ERR_INVALID, "cp.async.wait_group %d", n);
    if ((uint32_t)n >= l->cp_groups)
        return;
    uint32_t done = l->cp_groups - (uint32_t)n; /* groups 0 .. done-1 complete */
    while (l->cp_head < l->cp_n && l->cp[l->cp_head].group < done) {
        const CpCopy *c = &l->cp[l->cp_head++];
        if (c->src_bytes)
            memcpy(c->dst, c->src, c->src_bytes);
        memset(c->dst + c->src_bytes, 0, (size_t)(c->bytes - c->src_bytes));
    }
    if (l->cp_head == l->cp_n)
        l->cp_head = l->cp_n = 0;
}
