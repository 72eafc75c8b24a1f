; Two kernels in one code object: a 128-bit copy (one global_load_dwordx4, one global_store_dwordx4)
; and a 32-bit copy. Used for the golden text, the robustness tests and the metadata checks.
define amdgpu_kernel void @copy4(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr <4 x i32>, ptr addrspace(1) %in, i32 %id
  %v = load <4 x i32>, ptr addrspace(1) %p, align 16
  %q = getelementptr <4 x i32>, ptr addrspace(1) %out, i32 %id
  store <4 x i32> %v, ptr addrspace(1) %q, align 16
  ret void
}

define amdgpu_kernel void @copy1(ptr addrspace(1) %in, ptr addrspace(1) %out) #1 {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %id
  %v = load i32, ptr addrspace(1) %p, align 4
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %id
  store i32 %v, ptr addrspace(1) %q, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
attributes #0 = { "amdgpu-flat-work-group-size"="1,256" }
attributes #1 = { "amdgpu-flat-work-group-size"="1,64" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
