; Two MFMA shapes in a loop: v_mfma_f32_16x16x16_bf16 and v_mfma_f32_32x32x8_bf16 on gfx942 and gfx950
; (v_mfma_f32_16x16x16bf16_1k and v_mfma_f32_32x32x8bf16_1k on gfx90a), accumulating in AGPRs.
define amdgpu_kernel void @mfma(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, i32 %n) #0 {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc16 = phi <4 x float> [ zeroinitializer, %entry ], [ %r16, %loop ]
  %acc32 = phi <16 x float> [ zeroinitializer, %entry ], [ %r32, %loop ]
  %off = add i32 %i, %id
  %pa = getelementptr <4 x i16>, ptr addrspace(1) %a, i32 %off
  %pb = getelementptr <4 x i16>, ptr addrspace(1) %b, i32 %off
  %va = load <4 x i16>, ptr addrspace(1) %pa, align 8
  %vb = load <4 x i16>, ptr addrspace(1) %pb, align 8
  %r16 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %va, <4 x i16> %vb, <4 x float> %acc16, i32 0, i32 0, i32 0)
  %r32 = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x8bf16.1k(<4 x i16> %va, <4 x i16> %vb, <16 x float> %acc32, i32 0, i32 0, i32 0)
  %i.next = add i32 %i, 64
  %cond = icmp slt i32 %i.next, %n
  br i1 %cond, label %loop, label %exit
exit:
  %pc = getelementptr <4 x float>, ptr addrspace(1) %c, i32 %id
  store <4 x float> %acc16, ptr addrspace(1) %pc, align 16
  %pc2 = getelementptr <16 x float>, ptr addrspace(1) %c, i32 %id
  store <16 x float> %r32, ptr addrspace(1) %pc2, align 16
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16>, <4 x i16>, <4 x float>, i32, i32, i32)
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x8bf16.1k(<4 x i16>, <4 x i16>, <16 x float>, i32, i32, i32)
attributes #0 = { "amdgpu-flat-work-group-size"="1,256" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
