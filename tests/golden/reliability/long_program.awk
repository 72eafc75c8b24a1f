# Writes the 10,000-line program of long_program.tile: 1,000 generic fns of five lines, and a kernel
# that calls each once (so all are instantiated and inlined), then 2,000 lines of arithmetic and
# 1,000 loads, all in one straight-line block.
BEGIN {
    for (i = 0; i < 1000; i++) {
        print "fn step_" i "(v) {"; print "    let a = v * 1.5;"; print "    let b = a + " i ".0;"
        print "    return b - v * 0.5;"; print "}"; print ""
    }
    print "kernel big(x: *f32, out: *f32) {"; print "    let offs = arange(64);"
    print "    var acc = load(x + offs);"
    for (i = 0; i < 1000; i++) print "    acc = step_" i "(acc);"
    for (i = 0; i < 2000; i++) print "    acc = acc * 0.5 + " i ".0;"
    for (i = 0; i < 1000; i++) print "    acc += load(x + offs + " i ");"
    print "    store(out + offs, acc);"; print "}"
}
