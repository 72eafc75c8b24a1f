/* Code generation for the emulator: host code in a position-independent shared object (ld.lld -shared),
 * which the emulator dlopens. Modules with very large blocks take fast instruction selection (LLVM's
 * x86 selector is quadratic in a block's size; compiler/codegen/codegen.c, has_big_block). */
#include "compiler/target/target.h"

const TargetCodegen emu_codegen = {
    .pic = true,
    .fast_isel_big_blocks = true,
    .link = LINK_HOST_SO,
    .link_output = "out.so",
};
