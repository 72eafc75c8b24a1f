; LDS traffic: ds_write_b128 / ds_read_b128, a pair of 32-bit reads that LLVM merges into
; ds_read2_b32, a pair of 64-bit reads merged into ds_read2_b64, and 8- and 16-bit accesses.
; 4096 + 2048 + 2048 + 256 bytes of LDS in all.
@tile = internal addrspace(3) global [256 x <4 x i32>] poison, align 16
@words = internal addrspace(3) global [512 x i32] poison, align 4
@pairs = internal addrspace(3) global [256 x <2 x i32>] poison, align 8
@bytes = internal addrspace(3) global [256 x i8] poison, align 4

define amdgpu_kernel void @lds(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr <4 x i32>, ptr addrspace(1) %in, i32 %id
  %v = load <4 x i32>, ptr addrspace(1) %p, align 16
  %t = getelementptr [256 x <4 x i32>], ptr addrspace(3) @tile, i32 0, i32 %id
  store <4 x i32> %v, ptr addrspace(3) %t, align 16
  %e = extractelement <4 x i32> %v, i32 0
  %w = getelementptr [512 x i32], ptr addrspace(3) @words, i32 0, i32 %id
  store i32 %e, ptr addrspace(3) %w, align 4
  %b = getelementptr [256 x i8], ptr addrspace(3) @bytes, i32 0, i32 %id
  %e8 = trunc i32 %e to i8
  store i8 %e8, ptr addrspace(3) %b, align 1
  %e2 = extractelement <4 x i32> %v, i32 1
  %h = getelementptr [256 x i8], ptr addrspace(3) @bytes, i32 0, i32 128
  %e16 = trunc i32 %e2 to i16
  store i16 %e16, ptr addrspace(3) %h, align 2
  call void @llvm.amdgcn.s.barrier()
  %x = xor i32 %id, 1
  %t2 = getelementptr [256 x <4 x i32>], ptr addrspace(3) @tile, i32 0, i32 %x
  %r = load <4 x i32>, ptr addrspace(3) %t2, align 16
  %w0 = getelementptr [512 x i32], ptr addrspace(3) @words, i32 0, i32 %x
  %w1 = getelementptr i32, ptr addrspace(3) %w0, i32 16
  %a0 = load i32, ptr addrspace(3) %w0, align 4
  %a1 = load i32, ptr addrspace(3) %w1, align 4
  %d0 = getelementptr [256 x <2 x i32>], ptr addrspace(3) @pairs, i32 0, i32 %x
  %d1 = getelementptr <2 x i32>, ptr addrspace(3) %d0, i32 4
  %c0 = load <2 x i32>, ptr addrspace(3) %d0, align 8
  %c1 = load <2 x i32>, ptr addrspace(3) %d1, align 8
  %bb = getelementptr [256 x i8], ptr addrspace(3) @bytes, i32 0, i32 %x
  %u8 = load i8, ptr addrspace(3) %bb, align 1
  %u8w = zext i8 %u8 to i32
  %s0 = add i32 %a0, %a1
  %s1 = add i32 %s0, %u8w
  %cs = add <2 x i32> %c0, %c1
  %cx = extractelement <2 x i32> %cs, i32 0
  %cy = extractelement <2 x i32> %cs, i32 1
  %c = mul i32 %cx, %cy
  %s2 = add i32 %s1, %c
  %r2 = insertelement <4 x i32> %r, i32 %s2, i32 3
  %q = getelementptr <4 x i32>, ptr addrspace(1) %out, i32 %id
  store <4 x i32> %r2, ptr addrspace(1) %q, align 16
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier()
attributes #0 = { "amdgpu-flat-work-group-size"="1,256" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
