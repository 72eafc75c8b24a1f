; Test data for tests/unit/test_codegen.c: one small sm_90 kernel per NVPTX intrinsic, in the
; format of intrinsics.ll ("; ---- NAME: TARGETS"). TARGETS were found with llc-22 -mcpu=sm_90a:
; llvm.nvvm.tcgen05.* (sm_100a) ends in "LLVM ERROR: Cannot select" there.

; ---- llvm.nvvm.read.ptx.sreg.tid.x: sm_90
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
define ptx_kernel void @k(ptr addrspace(1) %out) {
  %r = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.nvvm.read.ptx.sreg.tid.y: sm_90
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
define ptx_kernel void @k(ptr addrspace(1) %out) {
  %r = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.nvvm.read.ptx.sreg.tid.z: sm_90
declare i32 @llvm.nvvm.read.ptx.sreg.tid.z()
define ptx_kernel void @k(ptr addrspace(1) %out) {
  %r = call i32 @llvm.nvvm.read.ptx.sreg.tid.z()
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.nvvm.read.ptx.sreg.ctaid.x: sm_90
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
define ptx_kernel void @k(ptr addrspace(1) %out) {
  %r = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.nvvm.read.ptx.sreg.ctaid.y: sm_90
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
define ptx_kernel void @k(ptr addrspace(1) %out) {
  %r = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.nvvm.read.ptx.sreg.ctaid.z: sm_90
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()
define ptx_kernel void @k(ptr addrspace(1) %out) {
  %r = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.nvvm.read.ptx.sreg.ntid.x: sm_90
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
define ptx_kernel void @k(ptr addrspace(1) %out) {
  %r = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.nvvm.read.ptx.sreg.nctaid.x: sm_90
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
define ptx_kernel void @k(ptr addrspace(1) %out) {
  %r = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.nvvm.read.ptx.sreg.laneid: sm_90
declare i32 @llvm.nvvm.read.ptx.sreg.laneid()
define ptx_kernel void @k(ptr addrspace(1) %out) {
  %r = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.nvvm.barrier.cta.sync.aligned.all: sm_90
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
define ptx_kernel void @k(ptr addrspace(1) %out) {
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

; ---- llvm.nvvm.bar.warp.sync: sm_90
declare void @llvm.nvvm.bar.warp.sync(i32)
define ptx_kernel void @k(ptr addrspace(1) %out) {
  call void @llvm.nvvm.bar.warp.sync(i32 -1)
  ret void
}

; ---- llvm.nvvm.shfl.sync.idx.i32: sm_90
declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32)
define ptx_kernel void @k(ptr addrspace(1) %out, i32 %p1, i32 %p2) {
  %r = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %p1, i32 %p2, i32 31)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.nvvm.shfl.sync.bfly.i32: sm_90
declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32)
define ptx_kernel void @k(ptr addrspace(1) %out, i32 %p1, i32 %p2) {
  %r = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %p1, i32 %p2, i32 31)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.nvvm.shfl.sync.up.i32: sm_90
declare i32 @llvm.nvvm.shfl.sync.up.i32(i32, i32, i32, i32)
define ptx_kernel void @k(ptr addrspace(1) %out, i32 %p1, i32 %p2) {
  %r = call i32 @llvm.nvvm.shfl.sync.up.i32(i32 -1, i32 %p1, i32 %p2, i32 0)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.nvvm.shfl.sync.down.i32: sm_90
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32)
define ptx_kernel void @k(ptr addrspace(1) %out, i32 %p1, i32 %p2) {
  %r = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %p1, i32 %p2, i32 31)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.nvvm.shfl.sync.idx.f32: sm_90
declare float @llvm.nvvm.shfl.sync.idx.f32(i32, float, i32, i32)
define ptx_kernel void @k(ptr addrspace(1) %out, float %p1, i32 %p2) {
  %r = call float @llvm.nvvm.shfl.sync.idx.f32(i32 -1, float %p1, i32 %p2, i32 31)
  store float %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.nvvm.shfl.sync.bfly.f32: sm_90
declare float @llvm.nvvm.shfl.sync.bfly.f32(i32, float, i32, i32)
define ptx_kernel void @k(ptr addrspace(1) %out, float %p1, i32 %p2) {
  %r = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %p1, i32 %p2, i32 31)
  store float %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.nvvm.vote.ballot.sync: sm_90
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)
define ptx_kernel void @k(ptr addrspace(1) %out, i1 %p1) {
  %r = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %p1)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.nvvm.wgmma.fence.sync.aligned: sm_90
declare void @llvm.nvvm.wgmma.fence.sync.aligned()
define ptx_kernel void @k(ptr addrspace(1) %out) {
  call void @llvm.nvvm.wgmma.fence.sync.aligned()
  ret void
}

; ---- llvm.nvvm.tcgen05.fence.before.thread.sync: 
declare void @llvm.nvvm.tcgen05.fence.before.thread.sync()
define ptx_kernel void @k(ptr addrspace(1) %out) {
  call void @llvm.nvvm.tcgen05.fence.before.thread.sync()
  ret void
}

; ---- llvm.amdgcn.workitem.id.x: 
declare i32 @llvm.amdgcn.workitem.id.x()
define ptx_kernel void @k(ptr addrspace(1) %out) {
  %r = call i32 @llvm.amdgcn.workitem.id.x()
  store i32 %r, ptr addrspace(1) %out
  ret void
}

