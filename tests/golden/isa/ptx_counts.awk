# Counts of the PTX instructions that show how an sm_90 kernel moves tiles through shared memory
# (used by the sm90_*.tile golden tests).
/st\.shared/ { st++ }
/ld\.shared/ { ld++ }
/bar\.sync/ { bar++ }
/cp\.async\.wait_group/ { wait++ }
/cp\.async\.commit_group/ { commit++ }
/ldmatrix/ { ldsm++ }
/mma\.sync/ { mma++ }
/wgmma\.mma_async/ { wgmma++ }
/fence\.proxy\.async/ { fence++ }
/cp\.async\.bulk\.tensor/ { tma += gsub(/cp\.async\.bulk\.tensor/, "&") }
/mbarrier\.try_wait/ { mwait++ }
END {
    printf "st.shared %d\nld.shared %d\nbar.sync %d\ncp.async.wait_group %d\n", st, ld, bar, wait
    printf "cp.async.commit_group %d\nldmatrix %d\nmma.sync %d\n", commit, ldsm, mma
    printf "wgmma.mma_async %d\nfence.proxy.async %d\n", wgmma, fence
    printf "cp.async.bulk.tensor %d\nmbarrier.try_wait %d\n", tma, mwait
}
