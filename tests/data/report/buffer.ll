; Buffer loads and stores through a buffer resource: 8, 16, 32, 64 and 128 bits, and a typed
; (format) load of four 32-bit components (buffer_load_format_xyzw = 128 bits). LLVM merges the
; 32- and 64-bit accesses at offsets 4 and 8 into one dwordx3 (96 bits).
define amdgpu_kernel void @buffer(ptr addrspace(8) inreg %in, ptr addrspace(8) inreg %out) #0 {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %o = mul i32 %id, 64
  %b = call i8 @llvm.amdgcn.raw.ptr.buffer.load.i8(ptr addrspace(8) %in, i32 %o, i32 0, i32 0)
  %o2 = add i32 %o, 2
  %h = call i16 @llvm.amdgcn.raw.ptr.buffer.load.i16(ptr addrspace(8) %in, i32 %o2, i32 0, i32 0)
  %o4 = add i32 %o, 4
  %w = call i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8) %in, i32 %o4, i32 0, i32 0)
  %o8 = add i32 %o, 8
  %d = call <2 x i32> @llvm.amdgcn.raw.ptr.buffer.load.v2i32(ptr addrspace(8) %in, i32 %o8, i32 0, i32 0)
  %o16 = add i32 %o, 16
  %q = call <4 x i32> @llvm.amdgcn.raw.ptr.buffer.load.v4i32(ptr addrspace(8) %in, i32 %o16, i32 0, i32 0)
  %o32 = add i32 %o, 32
  %f = call <4 x float> @llvm.amdgcn.raw.ptr.buffer.load.format.v4f32(ptr addrspace(8) %in, i32 %o32, i32 0, i32 0)
  call void @llvm.amdgcn.raw.ptr.buffer.store.i8(i8 %b, ptr addrspace(8) %out, i32 %o, i32 0, i32 0)
  call void @llvm.amdgcn.raw.ptr.buffer.store.i16(i16 %h, ptr addrspace(8) %out, i32 %o2, i32 0, i32 0)
  call void @llvm.amdgcn.raw.ptr.buffer.store.i32(i32 %w, ptr addrspace(8) %out, i32 %o4, i32 0, i32 0)
  call void @llvm.amdgcn.raw.ptr.buffer.store.v2i32(<2 x i32> %d, ptr addrspace(8) %out, i32 %o8, i32 0, i32 0)
  call void @llvm.amdgcn.raw.ptr.buffer.store.v4i32(<4 x i32> %q, ptr addrspace(8) %out, i32 %o16, i32 0, i32 0)
  call void @llvm.amdgcn.raw.ptr.buffer.store.v4f32(<4 x float> %f, ptr addrspace(8) %out, i32 %o32, i32 0, i32 0)
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i8 @llvm.amdgcn.raw.ptr.buffer.load.i8(ptr addrspace(8), i32, i32, i32)
declare i16 @llvm.amdgcn.raw.ptr.buffer.load.i16(ptr addrspace(8), i32, i32, i32)
declare i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8), i32, i32, i32)
declare <2 x i32> @llvm.amdgcn.raw.ptr.buffer.load.v2i32(ptr addrspace(8), i32, i32, i32)
declare <4 x i32> @llvm.amdgcn.raw.ptr.buffer.load.v4i32(ptr addrspace(8), i32, i32, i32)
declare <4 x float> @llvm.amdgcn.raw.ptr.buffer.load.format.v4f32(ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.i8(i8, ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.i16(i16, ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.i32(i32, ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.v2i32(<2 x i32>, ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.v4i32(<4 x i32>, ptr addrspace(8), i32, i32, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.store.v4f32(<4 x float>, ptr addrspace(8), i32, i32, i32)
attributes #0 = { "amdgpu-flat-work-group-size"="1,256" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
