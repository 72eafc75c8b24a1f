/* Occupancy: how many waves of a kernel can be resident on one SIMD, and what limits it.
 *
 * AMD's procedure for CDNA3 (../shared/background/rocm-kernel-optimization.md, after AMD's MI300X
 * tuning guide), with the limits of each CPU as data:
 *   occ_vgpr = waves per SIMD that the VGPR file holds:
 *              min(vgpr_file / alignTo(vgprs_total, granule), max_waves); max_waves below one granule
 *   occ_sgpr = waves per SIMD that the SGPRs allow (only above 100 SGPRs does this bite on gfx9)
 *   occ_lds  = workgroups per CU that the LDS holds: floor(lds / alignTo(L, lds_granule))
 *   nW       = waves per workgroup = ceil(workgroup size / 64)
 *   occ      = min(floor(min(occ_vgpr, occ_sgpr) * 4 / nW), occ_lds) * nW / 4, at most max_waves
 * where 4 is the number of SIMDs per CU. The result is floored to whole waves, but is at least 1
 * when one workgroup fits (a 1-wave workgroup on an otherwise empty CU runs 1 wave on one SIMD).
 *
 * Sources (LLVM 22, llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp):
 *   getVGPRAllocGranule: FeatureGFX90AInsts (gfx90a, gfx942, gfx950) -> 8. AMD's tuning guide
 *     says 16 in one place; LLVM's figure is the one the hardware descriptor is encoded with
 *     (getVGPREncodingGranule is also 8 there).
 *   getTotalNumVGPRs: FeatureGFX90AInsts -> 512 (the unified file: arch VGPRs + AGPRs).
 *   getMaxWavesPerEU: isGFX90A -> 8.
 *   getNumWavesPerEUWithNumVGPRs: NumVGPRs < Granule -> MaxWaves, else
 *     min(max(Total / alignTo(NumVGPRs, Granule), 1), MaxWaves).
 *   getOccupancyWithNumSGPRs (GFX8-GFX9): <= 80 -> 10, <= 88 -> 9, <= 100 -> 8, else 7.
 *   getTotalNumVGPRs in AMDGPUMCExpr / AMDGPUAsmPrinter: on gfx90a+ .vgpr_count is
 *     alignTo(arch VGPRs, 4) + AGPRs when AGPRs are used, else the arch count (LLVM's test
 *     agpr-register-count.ll: 9 VGPRs + 32 AGPRs -> .vgpr_count 44 on gfx90a).
 * LDS per CU: 64 KiB on gfx90a/gfx942 (FeatureAddressableLocalMemorySize65536), 160 KiB on gfx950
 *   (FeatureAddressableLocalMemorySize163840; LLVM's gfx950 LDS tests: "local memory (163844)
 *   exceeds limit (163840)").
 * LDS allocation granule: AMDGPUUsage, COMPUTE_PGM_RSRC2.LDS_SIZE: GFX7-GFX9 in blocks of 128
 *   dwords (512 bytes), GFX950 in blocks of 320 dwords (1280 bytes). AMD's text uses floor(64 KiB / L);
 *   the two agree whenever L is a multiple of 512.
 *
 * The VGPR table that results on gfx90a/gfx942/gfx950 (vgprs_total -> waves per SIMD):
 *     <= 64: 8   <= 72: 7   <= 80: 6   <= 96: 5   <= 128: 4   <= 168: 3   <= 256: 2   <= 512: 1
 *
 * Not modelled: scratch (wave slots for private memory), the per-CU limit of 16 workgroups with
 * barriers (never binding at 8 waves per SIMD), and CPUs other than those in the table (RDNA and
 * gfx908 have other files and limits): those return -1, "unknown target". */
#include <string.h>

#include "report.h"

typedef struct OccModel {
    const char *cpu;
    int vgpr_file;   /* VGPRs per lane per SIMD, AGPRs included */
    int vgpr_granule;
    int max_waves;   /* per SIMD */
    int simds;       /* per CU */
    int lds_bytes;   /* per CU */
    int lds_granule; /* allocation block, bytes */
} OccModel;

static const OccModel models[] = {
    {"gfx90a", 512, 8, 8, 4, 65536, 512},
    {"gfx940", 512, 8, 8, 4, 65536, 512},
    {"gfx941", 512, 8, 8, 4, 65536, 512},
    {"gfx942", 512, 8, 8, 4, 65536, 512},
    {"gfx950", 512, 8, 8, 4, 163840, 1280},
    {"gfx9-4-generic", 512, 8, 8, 4, 65536, 512}, /* runs on gfx942 too: its limits */
};

static int sgpr_waves(int sgprs)
{
    if (sgprs <= 80)
        return 10;
    if (sgprs <= 88)
        return 9;
    if (sgprs <= 100)
        return 8;
    return 7;
}

static int align_up(long long v, int granule)
{
    long long r = (v + granule - 1) / granule * granule;
    return r > 0x7fffffff ? 0x7fffffff : (int)r;
}

int report_occupancy_for(const char *cpu, int vgprs_total, int sgprs, int lds_bytes, int workgroup_size,
                         const char **limiter)
{
    const char *dummy;
    if (!limiter)
        limiter = &dummy;
    const OccModel *m = NULL;
    for (size_t i = 0; cpu && i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i].cpu, cpu) == 0)
            m = &models[i];
    if (!m) {
        *limiter = "unknown target";
        return -1;
    }
    int occ_vgpr = m->max_waves;
    if (vgprs_total >= m->vgpr_granule) {
        occ_vgpr = m->vgpr_file / align_up(vgprs_total, m->vgpr_granule);
        if (occ_vgpr < 1)
            occ_vgpr = 1; /* LLVM clamps to 1; more than 512 cannot be encoded anyway */
        if (occ_vgpr > m->max_waves)
            occ_vgpr = m->max_waves;
    }
    int occ_sgpr = sgpr_waves(sgprs);
    int occ_regs = occ_vgpr < occ_sgpr ? occ_vgpr : occ_sgpr;
    long long nw = workgroup_size > 0 ? (workgroup_size + 63) / 64 : 1;
    long long wg_regs = occ_regs * (long long)m->simds / nw;
    long long wg_lds = lds_bytes > 0 ? m->lds_bytes / align_up(lds_bytes, m->lds_granule) : wg_regs;
    long long wg = wg_regs < wg_lds ? wg_regs : wg_lds;
    long long waves = wg * nw / m->simds;
    if (waves == 0 && wg > 0)
        waves = 1;
    if (waves >= m->max_waves) {
        *limiter = "max waves";
        return m->max_waves;
    }
    if (wg_lds < wg_regs)
        *limiter = "lds";
    else if (waves < occ_regs)
        *limiter = "workgroup";
    else
        *limiter = occ_vgpr <= occ_sgpr ? "vgprs" : "sgprs";
    return (int)waves;
}

int report_occupancy(int vgprs_total, int lds_bytes, int workgroup_size, const char **limiter)
{
    return report_occupancy_for("gfx942", vgprs_total, 0, lds_bytes, workgroup_size, limiter);
}
