# The order of the PTX instructions that move tiles through shared memory, one line per run of the
# same instruction ("label" for a basic block's label), for the sm90_*.tile golden tests.
{
    k = ""
    if ($0 ~ /^\$L__BB[0-9_]+:/) k = "label"
    else if ($0 ~ /cp\.async\.bulk\.tensor/) k = "tma"
    else if ($0 ~ /mbarrier\.try_wait/) k = "mbarrier.wait"
    else if ($0 ~ /mbarrier\.init/) k = "mbarrier.init"
    else if ($0 ~ /mbarrier\.inval/) k = "mbarrier.inval"
    else if ($0 ~ /cp\.async\.wait_group/) k = "wait_group " $2
    else if ($0 ~ /cp\.async\.wait_all/) k = "wait_all"
    else if ($0 ~ /cp\.async\.commit_group/) k = "commit_group"
    else if ($0 ~ /cp\.async\.c[ag]\./) k = "cp.async"
    else if ($0 ~ /bar\.sync/) k = "bar.sync"
    else if ($0 ~ /ldmatrix/) k = "ldmatrix"
    else if ($0 ~ /mma\.sync/) k = "mma.sync"
    else if ($0 ~ /fence\.proxy\.async/) k = "fence.proxy.async"
    else if ($0 ~ /wgmma\.fence/) k = "wgmma.fence"
    else if ($0 ~ /wgmma\.mma_async/) k = $1
    else if ($0 ~ /wgmma\.commit_group/) k = "wgmma.commit_group"
    else if ($0 ~ /wgmma\.wait_group/) k = "wgmma.wait_group " $2
    else if ($0 ~ /[ \t]bra(\.uni)?[ \t]/) k = "bra"
    if (k != "" && k != last) { print k; last = k }
}
