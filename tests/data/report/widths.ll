; Global loads and stores of every width: 8, 16, 32, 64, 96 and 128 bits, one of each (volatile, so
; none is merged or widened), plus loads and stores through a generic (flat) pointer.
define amdgpu_kernel void @widths(ptr addrspace(1) %in, ptr addrspace(1) %out, ptr %gen) #0 {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %off = mul i32 %id, 64
  %pin = getelementptr i8, ptr addrspace(1) %in, i32 %off
  %pout = getelementptr i8, ptr addrspace(1) %out, i32 %off
  %p1 = getelementptr i8, ptr addrspace(1) %pin, i32 0
  %p2 = getelementptr i8, ptr addrspace(1) %pin, i32 2
  %p4 = getelementptr i8, ptr addrspace(1) %pin, i32 4
  %p8 = getelementptr i8, ptr addrspace(1) %pin, i32 8
  %p12 = getelementptr i8, ptr addrspace(1) %pin, i32 16
  %p16 = getelementptr i8, ptr addrspace(1) %pin, i32 32
  %v1 = load volatile i8, ptr addrspace(1) %p1, align 1
  %v2 = load volatile i16, ptr addrspace(1) %p2, align 2
  %v4 = load volatile i32, ptr addrspace(1) %p4, align 4
  %v8 = load volatile <2 x i32>, ptr addrspace(1) %p8, align 8
  %v12 = load volatile <3 x i32>, ptr addrspace(1) %p12, align 16
  %v16 = load volatile <4 x i32>, ptr addrspace(1) %p16, align 16
  %q1 = getelementptr i8, ptr addrspace(1) %pout, i32 0
  %q2 = getelementptr i8, ptr addrspace(1) %pout, i32 2
  %q4 = getelementptr i8, ptr addrspace(1) %pout, i32 4
  %q8 = getelementptr i8, ptr addrspace(1) %pout, i32 8
  %q12 = getelementptr i8, ptr addrspace(1) %pout, i32 16
  %q16 = getelementptr i8, ptr addrspace(1) %pout, i32 32
  store volatile i8 %v1, ptr addrspace(1) %q1, align 1
  store volatile i16 %v2, ptr addrspace(1) %q2, align 2
  store volatile i32 %v4, ptr addrspace(1) %q4, align 4
  store volatile <2 x i32> %v8, ptr addrspace(1) %q8, align 8
  store volatile <3 x i32> %v12, ptr addrspace(1) %q12, align 16
  store volatile <4 x i32> %v16, ptr addrspace(1) %q16, align 16
  %g = getelementptr <4 x i32>, ptr %gen, i32 %id
  %gv = load volatile <4 x i32>, ptr %g, align 16
  %gs = load volatile i16, ptr %gen, align 2
  %g2 = getelementptr <4 x i32>, ptr %g, i32 1
  store volatile <4 x i32> %gv, ptr %g2, align 16
  store volatile i16 %gs, ptr %gen, align 2
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
attributes #0 = { "amdgpu-flat-work-group-size"="1,256" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
