# loop_shape.awk: the main loop of gfx9 assembly (rkc --emit=asm), the loop from a label to a backward
# branch to it with the most instructions: prints "main loop: N instructions, M MFMAs after its last
# barrier" (M counts from the loop's top where it has no s_barrier).
/^\.LBB[0-9_]+:/ { label = $1; sub(/:$/, "", label); at[label] = n }
/^[ \t]+[a-z]/ && !/^[ \t]+\./ {
    n++
    kind[n] = $1 ~ /^s_barrier/ ? "B" : $1 ~ /^v_mfma/ ? "M" : ""
    if ($1 ~ /^s_(cbranch_[a-z0-9]+|branch)$/ && ($2 in at) && n - at[$2] > best) {
        best = n - at[$2]
        best_m = 0
        for (i = n; i > at[$2] && kind[i] != "B"; i--)
            best_m += kind[i] == "M"
    }
}
END { print "main loop: " best + 0 " instructions, " best_m + 0 " MFMAs after its last barrier" }
