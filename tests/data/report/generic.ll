; Code object v6 for the generic target gfx9-4-generic (e_flags carry EF_AMDGPU_GENERIC_VERSION):
; the same loop and MFMAs as mfma.ll.
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
!0 = !{i32 1, !"amdhsa_code_object_version", i32 600}
