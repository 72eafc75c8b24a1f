/* Mixed-precision multiply-adds back to scalars after SLP (mix_f16.c). */
#ifndef RK_MIX_F16_H
#define RK_MIX_F16_H

#include <llvm-c/Core.h>

/* Every packed contract multiply-add on floats with an operand extended from half, and its fptrunc to
 * half, split into lanes, where v_fma_mix* take the halves directly (mix_f16.c). */
void amdgpu_split_mixed_f16(LLVMModuleRef m);

#endif
