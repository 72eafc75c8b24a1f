/* Code generation for NVIDIA sm_90: LLVM's default pipeline; the binary is the PTX text (ptxas, when
 * asked, assembles it into a cubin: compiler/codegen/codegen_link.c). */
#include "compiler/target/target.h"

const TargetCodegen nvptx_codegen = {
    .link = LINK_NONE,
};
