; A GEMM-like main loop, for the timing figure and the MFMA/LDS counts of a realistic kernel.
; Per K step: two 128-bit global loads staged through LDS (ds_write_b128), a barrier, eight
; 64-bit fragment reads (ds_read_b64) and sixteen v_mfma_f32_16x16x16_bf16 on a 4x4 grid of
; accumulators. Written out by a short script (one line per instruction of the pattern).
@smem = internal addrspace(3) global [2048 x <4 x i32>] poison, align 16

define amdgpu_kernel void @gemm(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, i32 %k) #0 {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  br label %loop
loop:
  %kk = phi i32 [ 0, %entry ], [ %kk.next, %loop ]
  %acc0 = phi <4 x float> [ zeroinitializer, %entry ], [ %r0, %loop ]
  %acc1 = phi <4 x float> [ zeroinitializer, %entry ], [ %r1, %loop ]
  %acc2 = phi <4 x float> [ zeroinitializer, %entry ], [ %r2, %loop ]
  %acc3 = phi <4 x float> [ zeroinitializer, %entry ], [ %r3, %loop ]
  %acc4 = phi <4 x float> [ zeroinitializer, %entry ], [ %r4, %loop ]
  %acc5 = phi <4 x float> [ zeroinitializer, %entry ], [ %r5, %loop ]
  %acc6 = phi <4 x float> [ zeroinitializer, %entry ], [ %r6, %loop ]
  %acc7 = phi <4 x float> [ zeroinitializer, %entry ], [ %r7, %loop ]
  %acc8 = phi <4 x float> [ zeroinitializer, %entry ], [ %r8, %loop ]
  %acc9 = phi <4 x float> [ zeroinitializer, %entry ], [ %r9, %loop ]
  %acc10 = phi <4 x float> [ zeroinitializer, %entry ], [ %r10, %loop ]
  %acc11 = phi <4 x float> [ zeroinitializer, %entry ], [ %r11, %loop ]
  %acc12 = phi <4 x float> [ zeroinitializer, %entry ], [ %r12, %loop ]
  %acc13 = phi <4 x float> [ zeroinitializer, %entry ], [ %r13, %loop ]
  %acc14 = phi <4 x float> [ zeroinitializer, %entry ], [ %r14, %loop ]
  %acc15 = phi <4 x float> [ zeroinitializer, %entry ], [ %r15, %loop ]
  %ga = add i32 %kk, %id
  %pa = getelementptr <4 x i32>, ptr addrspace(1) %a, i32 %ga
  %pb = getelementptr <4 x i32>, ptr addrspace(1) %b, i32 %ga
  %va = load <4 x i32>, ptr addrspace(1) %pa, align 16
  %vb = load <4 x i32>, ptr addrspace(1) %pb, align 16
  %sa = getelementptr [2048 x <4 x i32>], ptr addrspace(3) @smem, i32 0, i32 %id
  %idb = add i32 %id, 1024
  %sb = getelementptr [2048 x <4 x i32>], ptr addrspace(3) @smem, i32 0, i32 %idb
  store <4 x i32> %va, ptr addrspace(3) %sa, align 16
  store <4 x i32> %vb, ptr addrspace(3) %sb, align 16
  call void @llvm.amdgcn.s.barrier()
  %fbase = mul i32 %id, 2
  %ia0 = add i32 %fbase, 0
  %fa0p = getelementptr <4 x i16>, ptr addrspace(3) @smem, i32 %ia0
  %fa0 = load <4 x i16>, ptr addrspace(3) %fa0p, align 8
  %ib0 = add i32 %fbase, 2049
  %fb0p = getelementptr <4 x i16>, ptr addrspace(3) @smem, i32 %ib0
  %fb0 = load <4 x i16>, ptr addrspace(3) %fb0p, align 8
  %ia1 = add i32 %fbase, 513
  %fa1p = getelementptr <4 x i16>, ptr addrspace(3) @smem, i32 %ia1
  %fa1 = load <4 x i16>, ptr addrspace(3) %fa1p, align 8
  %ib1 = add i32 %fbase, 2564
  %fb1p = getelementptr <4 x i16>, ptr addrspace(3) @smem, i32 %ib1
  %fb1 = load <4 x i16>, ptr addrspace(3) %fb1p, align 8
  %ia2 = add i32 %fbase, 1026
  %fa2p = getelementptr <4 x i16>, ptr addrspace(3) @smem, i32 %ia2
  %fa2 = load <4 x i16>, ptr addrspace(3) %fa2p, align 8
  %ib2 = add i32 %fbase, 3079
  %fb2p = getelementptr <4 x i16>, ptr addrspace(3) @smem, i32 %ib2
  %fb2 = load <4 x i16>, ptr addrspace(3) %fb2p, align 8
  %ia3 = add i32 %fbase, 1539
  %fa3p = getelementptr <4 x i16>, ptr addrspace(3) @smem, i32 %ia3
  %fa3 = load <4 x i16>, ptr addrspace(3) %fa3p, align 8
  %ib3 = add i32 %fbase, 3594
  %fb3p = getelementptr <4 x i16>, ptr addrspace(3) @smem, i32 %ib3
  %fb3 = load <4 x i16>, ptr addrspace(3) %fb3p, align 8
  %r0 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %fa0, <4 x i16> %fb0, <4 x float> %acc0, i32 0, i32 0, i32 0)
  %r1 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %fa0, <4 x i16> %fb1, <4 x float> %acc1, i32 0, i32 0, i32 0)
  %r2 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %fa0, <4 x i16> %fb2, <4 x float> %acc2, i32 0, i32 0, i32 0)
  %r3 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %fa0, <4 x i16> %fb3, <4 x float> %acc3, i32 0, i32 0, i32 0)
  %r4 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %fa1, <4 x i16> %fb0, <4 x float> %acc4, i32 0, i32 0, i32 0)
  %r5 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %fa1, <4 x i16> %fb1, <4 x float> %acc5, i32 0, i32 0, i32 0)
  %r6 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %fa1, <4 x i16> %fb2, <4 x float> %acc6, i32 0, i32 0, i32 0)
  %r7 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %fa1, <4 x i16> %fb3, <4 x float> %acc7, i32 0, i32 0, i32 0)
  %r8 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %fa2, <4 x i16> %fb0, <4 x float> %acc8, i32 0, i32 0, i32 0)
  %r9 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %fa2, <4 x i16> %fb1, <4 x float> %acc9, i32 0, i32 0, i32 0)
  %r10 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %fa2, <4 x i16> %fb2, <4 x float> %acc10, i32 0, i32 0, i32 0)
  %r11 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %fa2, <4 x i16> %fb3, <4 x float> %acc11, i32 0, i32 0, i32 0)
  %r12 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %fa3, <4 x i16> %fb0, <4 x float> %acc12, i32 0, i32 0, i32 0)
  %r13 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %fa3, <4 x i16> %fb1, <4 x float> %acc13, i32 0, i32 0, i32 0)
  %r14 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %fa3, <4 x i16> %fb2, <4 x float> %acc14, i32 0, i32 0, i32 0)
  %r15 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %fa3, <4 x i16> %fb3, <4 x float> %acc15, i32 0, i32 0, i32 0)
  call void @llvm.amdgcn.s.barrier()
  %kk.next = add i32 %kk, 32
  %cond = icmp slt i32 %kk.next, %k
  br i1 %cond, label %loop, label %exit
exit:
  %o0 = add i32 %id, 0
  %pc0 = getelementptr <4 x float>, ptr addrspace(1) %c, i32 %o0
  store <4 x float> %r0, ptr addrspace(1) %pc0, align 16
  %o1 = add i32 %id, 256
  %pc1 = getelementptr <4 x float>, ptr addrspace(1) %c, i32 %o1
  store <4 x float> %r1, ptr addrspace(1) %pc1, align 16
  %o2 = add i32 %id, 512
  %pc2 = getelementptr <4 x float>, ptr addrspace(1) %c, i32 %o2
  store <4 x float> %r2, ptr addrspace(1) %pc2, align 16
  %o3 = add i32 %id, 768
  %pc3 = getelementptr <4 x float>, ptr addrspace(1) %c, i32 %o3
  store <4 x float> %r3, ptr addrspace(1) %pc3, align 16
  %o4 = add i32 %id, 1024
  %pc4 = getelementptr <4 x float>, ptr addrspace(1) %c, i32 %o4
  store <4 x float> %r4, ptr addrspace(1) %pc4, align 16
  %o5 = add i32 %id, 1280
  %pc5 = getelementptr <4 x float>, ptr addrspace(1) %c, i32 %o5
  store <4 x float> %r5, ptr addrspace(1) %pc5, align 16
  %o6 = add i32 %id, 1536
  %pc6 = getelementptr <4 x float>, ptr addrspace(1) %c, i32 %o6
  store <4 x float> %r6, ptr addrspace(1) %pc6, align 16
  %o7 = add i32 %id, 1792
  %pc7 = getelementptr <4 x float>, ptr addrspace(1) %c, i32 %o7
  store <4 x float> %r7, ptr addrspace(1) %pc7, align 16
  %o8 = add i32 %id, 2048
  %pc8 = getelementptr <4 x float>, ptr addrspace(1) %c, i32 %o8
  store <4 x float> %r8, ptr addrspace(1) %pc8, align 16
  %o9 = add i32 %id, 2304
  %pc9 = getelementptr <4 x float>, ptr addrspace(1) %c, i32 %o9
  store <4 x float> %r9, ptr addrspace(1) %pc9, align 16
  %o10 = add i32 %id, 2560
  %pc10 = getelementptr <4 x float>, ptr addrspace(1) %c, i32 %o10
  store <4 x float> %r10, ptr addrspace(1) %pc10, align 16
  %o11 = add i32 %id, 2816
  %pc11 = getelementptr <4 x float>, ptr addrspace(1) %c, i32 %o11
  store <4 x float> %r11, ptr addrspace(1) %pc11, align 16
  %o12 = add i32 %id, 3072
  %pc12 = getelementptr <4 x float>, ptr addrspace(1) %c, i32 %o12
  store <4 x float> %r12, ptr addrspace(1) %pc12, align 16
  %o13 = add i32 %id, 3328
  %pc13 = getelementptr <4 x float>, ptr addrspace(1) %c, i32 %o13
  store <4 x float> %r13, ptr addrspace(1) %pc13, align 16
  %o14 = add i32 %id, 3584
  %pc14 = getelementptr <4 x float>, ptr addrspace(1) %c, i32 %o14
  store <4 x float> %r14, ptr addrspace(1) %pc14, align 16
  %o15 = add i32 %id, 3840
  %pc15 = getelementptr <4 x float>, ptr addrspace(1) %c, i32 %o15
  store <4 x float> %r15, ptr addrspace(1) %pc15, align 16
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier()
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16>, <4 x i16>, <4 x float>, i32, i32, i32)
attributes #0 = { "amdgpu-flat-work-group-size"="1,256" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
