; Register pressure that spills: forty 128-bit loads all live until forty stores in reverse order
; (volatile, so nothing is reordered), with amdgpu-waves-per-eu=8 capping VGPRs+AGPRs at 64.
; LLVM spills to AGPRs first, then to scratch: scratch_store/scratch_load and scratch > 0.
define amdgpu_kernel void @spill(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %p0 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 0
  %q0 = getelementptr <4 x float>, ptr addrspace(1) %p0, i32 %id
  %v0 = load volatile <4 x float>, ptr addrspace(1) %q0, align 16
  %p1 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 256
  %q1 = getelementptr <4 x float>, ptr addrspace(1) %p1, i32 %id
  %v1 = load volatile <4 x float>, ptr addrspace(1) %q1, align 16
  %p2 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 512
  %q2 = getelementptr <4 x float>, ptr addrspace(1) %p2, i32 %id
  %v2 = load volatile <4 x float>, ptr addrspace(1) %q2, align 16
  %p3 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 768
  %q3 = getelementptr <4 x float>, ptr addrspace(1) %p3, i32 %id
  %v3 = load volatile <4 x float>, ptr addrspace(1) %q3, align 16
  %p4 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 1024
  %q4 = getelementptr <4 x float>, ptr addrspace(1) %p4, i32 %id
  %v4 = load volatile <4 x float>, ptr addrspace(1) %q4, align 16
  %p5 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 1280
  %q5 = getelementptr <4 x float>, ptr addrspace(1) %p5, i32 %id
  %v5 = load volatile <4 x float>, ptr addrspace(1) %q5, align 16
  %p6 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 1536
  %q6 = getelementptr <4 x float>, ptr addrspace(1) %p6, i32 %id
  %v6 = load volatile <4 x float>, ptr addrspace(1) %q6, align 16
  %p7 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 1792
  %q7 = getelementptr <4 x float>, ptr addrspace(1) %p7, i32 %id
  %v7 = load volatile <4 x float>, ptr addrspace(1) %q7, align 16
  %p8 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 2048
  %q8 = getelementptr <4 x float>, ptr addrspace(1) %p8, i32 %id
  %v8 = load volatile <4 x float>, ptr addrspace(1) %q8, align 16
  %p9 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 2304
  %q9 = getelementptr <4 x float>, ptr addrspace(1) %p9, i32 %id
  %v9 = load volatile <4 x float>, ptr addrspace(1) %q9, align 16
  %p10 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 2560
  %q10 = getelementptr <4 x float>, ptr addrspace(1) %p10, i32 %id
  %v10 = load volatile <4 x float>, ptr addrspace(1) %q10, align 16
  %p11 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 2816
  %q11 = getelementptr <4 x float>, ptr addrspace(1) %p11, i32 %id
  %v11 = load volatile <4 x float>, ptr addrspace(1) %q11, align 16
  %p12 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 3072
  %q12 = getelementptr <4 x float>, ptr addrspace(1) %p12, i32 %id
  %v12 = load volatile <4 x float>, ptr addrspace(1) %q12, align 16
  %p13 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 3328
  %q13 = getelementptr <4 x float>, ptr addrspace(1) %p13, i32 %id
  %v13 = load volatile <4 x float>, ptr addrspace(1) %q13, align 16
  %p14 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 3584
  %q14 = getelementptr <4 x float>, ptr addrspace(1) %p14, i32 %id
  %v14 = load volatile <4 x float>, ptr addrspace(1) %q14, align 16
  %p15 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 3840
  %q15 = getelementptr <4 x float>, ptr addrspace(1) %p15, i32 %id
  %v15 = load volatile <4 x float>, ptr addrspace(1) %q15, align 16
  %p16 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 4096
  %q16 = getelementptr <4 x float>, ptr addrspace(1) %p16, i32 %id
  %v16 = load volatile <4 x float>, ptr addrspace(1) %q16, align 16
  %p17 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 4352
  %q17 = getelementptr <4 x float>, ptr addrspace(1) %p17, i32 %id
  %v17 = load volatile <4 x float>, ptr addrspace(1) %q17, align 16
  %p18 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 4608
  %q18 = getelementptr <4 x float>, ptr addrspace(1) %p18, i32 %id
  %v18 = load volatile <4 x float>, ptr addrspace(1) %q18, align 16
  %p19 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 4864
  %q19 = getelementptr <4 x float>, ptr addrspace(1) %p19, i32 %id
  %v19 = load volatile <4 x float>, ptr addrspace(1) %q19, align 16
  %p20 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 5120
  %q20 = getelementptr <4 x float>, ptr addrspace(1) %p20, i32 %id
  %v20 = load volatile <4 x float>, ptr addrspace(1) %q20, align 16
  %p21 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 5376
  %q21 = getelementptr <4 x float>, ptr addrspace(1) %p21, i32 %id
  %v21 = load volatile <4 x float>, ptr addrspace(1) %q21, align 16
  %p22 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 5632
  %q22 = getelementptr <4 x float>, ptr addrspace(1) %p22, i32 %id
  %v22 = load volatile <4 x float>, ptr addrspace(1) %q22, align 16
  %p23 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 5888
  %q23 = getelementptr <4 x float>, ptr addrspace(1) %p23, i32 %id
  %v23 = load volatile <4 x float>, ptr addrspace(1) %q23, align 16
  %p24 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 6144
  %q24 = getelementptr <4 x float>, ptr addrspace(1) %p24, i32 %id
  %v24 = load volatile <4 x float>, ptr addrspace(1) %q24, align 16
  %p25 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 6400
  %q25 = getelementptr <4 x float>, ptr addrspace(1) %p25, i32 %id
  %v25 = load volatile <4 x float>, ptr addrspace(1) %q25, align 16
  %p26 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 6656
  %q26 = getelementptr <4 x float>, ptr addrspace(1) %p26, i32 %id
  %v26 = load volatile <4 x float>, ptr addrspace(1) %q26, align 16
  %p27 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 6912
  %q27 = getelementptr <4 x float>, ptr addrspace(1) %p27, i32 %id
  %v27 = load volatile <4 x float>, ptr addrspace(1) %q27, align 16
  %p28 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 7168
  %q28 = getelementptr <4 x float>, ptr addrspace(1) %p28, i32 %id
  %v28 = load volatile <4 x float>, ptr addrspace(1) %q28, align 16
  %p29 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 7424
  %q29 = getelementptr <4 x float>, ptr addrspace(1) %p29, i32 %id
  %v29 = load volatile <4 x float>, ptr addrspace(1) %q29, align 16
  %p30 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 7680
  %q30 = getelementptr <4 x float>, ptr addrspace(1) %p30, i32 %id
  %v30 = load volatile <4 x float>, ptr addrspace(1) %q30, align 16
  %p31 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 7936
  %q31 = getelementptr <4 x float>, ptr addrspace(1) %p31, i32 %id
  %v31 = load volatile <4 x float>, ptr addrspace(1) %q31, align 16
  %p32 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 8192
  %q32 = getelementptr <4 x float>, ptr addrspace(1) %p32, i32 %id
  %v32 = load volatile <4 x float>, ptr addrspace(1) %q32, align 16
  %p33 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 8448
  %q33 = getelementptr <4 x float>, ptr addrspace(1) %p33, i32 %id
  %v33 = load volatile <4 x float>, ptr addrspace(1) %q33, align 16
  %p34 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 8704
  %q34 = getelementptr <4 x float>, ptr addrspace(1) %p34, i32 %id
  %v34 = load volatile <4 x float>, ptr addrspace(1) %q34, align 16
  %p35 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 8960
  %q35 = getelementptr <4 x float>, ptr addrspace(1) %p35, i32 %id
  %v35 = load volatile <4 x float>, ptr addrspace(1) %q35, align 16
  %p36 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 9216
  %q36 = getelementptr <4 x float>, ptr addrspace(1) %p36, i32 %id
  %v36 = load volatile <4 x float>, ptr addrspace(1) %q36, align 16
  %p37 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 9472
  %q37 = getelementptr <4 x float>, ptr addrspace(1) %p37, i32 %id
  %v37 = load volatile <4 x float>, ptr addrspace(1) %q37, align 16
  %p38 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 9728
  %q38 = getelementptr <4 x float>, ptr addrspace(1) %p38, i32 %id
  %v38 = load volatile <4 x float>, ptr addrspace(1) %q38, align 16
  %p39 = getelementptr <4 x float>, ptr addrspace(1) %in, i32 9984
  %q39 = getelementptr <4 x float>, ptr addrspace(1) %p39, i32 %id
  %v39 = load volatile <4 x float>, ptr addrspace(1) %q39, align 16
  %o39 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 9984
  %r39 = getelementptr <4 x float>, ptr addrspace(1) %o39, i32 %id
  store volatile <4 x float> %v39, ptr addrspace(1) %r39, align 16
  %o38 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 9728
  %r38 = getelementptr <4 x float>, ptr addrspace(1) %o38, i32 %id
  store volatile <4 x float> %v38, ptr addrspace(1) %r38, align 16
  %o37 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 9472
  %r37 = getelementptr <4 x float>, ptr addrspace(1) %o37, i32 %id
  store volatile <4 x float> %v37, ptr addrspace(1) %r37, align 16
  %o36 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 9216
  %r36 = getelementptr <4 x float>, ptr addrspace(1) %o36, i32 %id
  store volatile <4 x float> %v36, ptr addrspace(1) %r36, align 16
  %o35 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 8960
  %r35 = getelementptr <4 x float>, ptr addrspace(1) %o35, i32 %id
  store volatile <4 x float> %v35, ptr addrspace(1) %r35, align 16
  %o34 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 8704
  %r34 = getelementptr <4 x float>, ptr addrspace(1) %o34, i32 %id
  store volatile <4 x float> %v34, ptr addrspace(1) %r34, align 16
  %o33 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 8448
  %r33 = getelementptr <4 x float>, ptr addrspace(1) %o33, i32 %id
  store volatile <4 x float> %v33, ptr addrspace(1) %r33, align 16
  %o32 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 8192
  %r32 = getelementptr <4 x float>, ptr addrspace(1) %o32, i32 %id
  store volatile <4 x float> %v32, ptr addrspace(1) %r32, align 16
  %o31 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 7936
  %r31 = getelementptr <4 x float>, ptr addrspace(1) %o31, i32 %id
  store volatile <4 x float> %v31, ptr addrspace(1) %r31, align 16
  %o30 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 7680
  %r30 = getelementptr <4 x float>, ptr addrspace(1) %o30, i32 %id
  store volatile <4 x float> %v30, ptr addrspace(1) %r30, align 16
  %o29 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 7424
  %r29 = getelementptr <4 x float>, ptr addrspace(1) %o29, i32 %id
  store volatile <4 x float> %v29, ptr addrspace(1) %r29, align 16
  %o28 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 7168
  %r28 = getelementptr <4 x float>, ptr addrspace(1) %o28, i32 %id
  store volatile <4 x float> %v28, ptr addrspace(1) %r28, align 16
  %o27 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 6912
  %r27 = getelementptr <4 x float>, ptr addrspace(1) %o27, i32 %id
  store volatile <4 x float> %v27, ptr addrspace(1) %r27, align 16
  %o26 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 6656
  %r26 = getelementptr <4 x float>, ptr addrspace(1) %o26, i32 %id
  store volatile <4 x float> %v26, ptr addrspace(1) %r26, align 16
  %o25 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 6400
  %r25 = getelementptr <4 x float>, ptr addrspace(1) %o25, i32 %id
  store volatile <4 x float> %v25, ptr addrspace(1) %r25, align 16
  %o24 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 6144
  %r24 = getelementptr <4 x float>, ptr addrspace(1) %o24, i32 %id
  store volatile <4 x float> %v24, ptr addrspace(1) %r24, align 16
  %o23 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 5888
  %r23 = getelementptr <4 x float>, ptr addrspace(1) %o23, i32 %id
  store volatile <4 x float> %v23, ptr addrspace(1) %r23, align 16
  %o22 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 5632
  %r22 = getelementptr <4 x float>, ptr addrspace(1) %o22, i32 %id
  store volatile <4 x float> %v22, ptr addrspace(1) %r22, align 16
  %o21 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 5376
  %r21 = getelementptr <4 x float>, ptr addrspace(1) %o21, i32 %id
  store volatile <4 x float> %v21, ptr addrspace(1) %r21, align 16
  %o20 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 5120
  %r20 = getelementptr <4 x float>, ptr addrspace(1) %o20, i32 %id
  store volatile <4 x float> %v20, ptr addrspace(1) %r20, align 16
  %o19 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 4864
  %r19 = getelementptr <4 x float>, ptr addrspace(1) %o19, i32 %id
  store volatile <4 x float> %v19, ptr addrspace(1) %r19, align 16
  %o18 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 4608
  %r18 = getelementptr <4 x float>, ptr addrspace(1) %o18, i32 %id
  store volatile <4 x float> %v18, ptr addrspace(1) %r18, align 16
  %o17 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 4352
  %r17 = getelementptr <4 x float>, ptr addrspace(1) %o17, i32 %id
  store volatile <4 x float> %v17, ptr addrspace(1) %r17, align 16
  %o16 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 4096
  %r16 = getelementptr <4 x float>, ptr addrspace(1) %o16, i32 %id
  store volatile <4 x float> %v16, ptr addrspace(1) %r16, align 16
  %o15 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 3840
  %r15 = getelementptr <4 x float>, ptr addrspace(1) %o15, i32 %id
  store volatile <4 x float> %v15, ptr addrspace(1) %r15, align 16
  %o14 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 3584
  %r14 = getelementptr <4 x float>, ptr addrspace(1) %o14, i32 %id
  store volatile <4 x float> %v14, ptr addrspace(1) %r14, align 16
  %o13 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 3328
  %r13 = getelementptr <4 x float>, ptr addrspace(1) %o13, i32 %id
  store volatile <4 x float> %v13, ptr addrspace(1) %r13, align 16
  %o12 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 3072
  %r12 = getelementptr <4 x float>, ptr addrspace(1) %o12, i32 %id
  store volatile <4 x float> %v12, ptr addrspace(1) %r12, align 16
  %o11 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 2816
  %r11 = getelementptr <4 x float>, ptr addrspace(1) %o11, i32 %id
  store volatile <4 x float> %v11, ptr addrspace(1) %r11, align 16
  %o10 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 2560
  %r10 = getelementptr <4 x float>, ptr addrspace(1) %o10, i32 %id
  store volatile <4 x float> %v10, ptr addrspace(1) %r10, align 16
  %o9 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 2304
  %r9 = getelementptr <4 x float>, ptr addrspace(1) %o9, i32 %id
  store volatile <4 x float> %v9, ptr addrspace(1) %r9, align 16
  %o8 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 2048
  %r8 = getelementptr <4 x float>, ptr addrspace(1) %o8, i32 %id
  store volatile <4 x float> %v8, ptr addrspace(1) %r8, align 16
  %o7 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 1792
  %r7 = getelementptr <4 x float>, ptr addrspace(1) %o7, i32 %id
  store volatile <4 x float> %v7, ptr addrspace(1) %r7, align 16
  %o6 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 1536
  %r6 = getelementptr <4 x float>, ptr addrspace(1) %o6, i32 %id
  store volatile <4 x float> %v6, ptr addrspace(1) %r6, align 16
  %o5 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 1280
  %r5 = getelementptr <4 x float>, ptr addrspace(1) %o5, i32 %id
  store volatile <4 x float> %v5, ptr addrspace(1) %r5, align 16
  %o4 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 1024
  %r4 = getelementptr <4 x float>, ptr addrspace(1) %o4, i32 %id
  store volatile <4 x float> %v4, ptr addrspace(1) %r4, align 16
  %o3 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 768
  %r3 = getelementptr <4 x float>, ptr addrspace(1) %o3, i32 %id
  store volatile <4 x float> %v3, ptr addrspace(1) %r3, align 16
  %o2 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 512
  %r2 = getelementptr <4 x float>, ptr addrspace(1) %o2, i32 %id
  store volatile <4 x float> %v2, ptr addrspace(1) %r2, align 16
  %o1 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 256
  %r1 = getelementptr <4 x float>, ptr addrspace(1) %o1, i32 %id
  store volatile <4 x float> %v1, ptr addrspace(1) %r1, align 16
  %o0 = getelementptr <4 x float>, ptr addrspace(1) %out, i32 0
  %r0 = getelementptr <4 x float>, ptr addrspace(1) %o0, i32 %id
  store volatile <4 x float> %v0, ptr addrspace(1) %r0, align 16
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
attributes #0 = { "amdgpu-flat-work-group-size"="1,256" "amdgpu-waves-per-eu"="8,8" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
