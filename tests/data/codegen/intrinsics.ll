; Test data for tests/unit/test_codegen.c: one small gfx9 kernel per target intrinsic.
; Each chunk starts with "; ---- NAME: TARGETS": NAME is the intrinsic's base name (what
; LLVMIntrinsicGetName gives), TARGETS the rk targets that must accept the chunk and compile it.
; Every other target must refuse it with a message naming the intrinsic, before LLVM runs.
; TARGETS were found by running each chunk through llc-22 -mcpu=<cpu> (LLVM 22.1.8): an intrinsic
; a CPU lacks ends in "LLVM ERROR: Cannot select" (abort). Exceptions, refused on purpose:
;   llvm.amdgcn.cvt.scalef32.* selects on gfx90a/gfx942 too, silently emitting a gfx950-only
;   instruction; llvm.amdgcn.s.barrier.signal segfaults llc on gfx9.

; ---- llvm.amdgcn.workitem.id.x: gfx90a gfx942 gfx950
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %r = call i32 @llvm.amdgcn.workitem.id.x()
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.workitem.id.y: gfx90a gfx942 gfx950
declare i32 @llvm.amdgcn.workitem.id.y()
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %r = call i32 @llvm.amdgcn.workitem.id.y()
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.workitem.id.z: gfx90a gfx942 gfx950
declare i32 @llvm.amdgcn.workitem.id.z()
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %r = call i32 @llvm.amdgcn.workitem.id.z()
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.workgroup.id.x: gfx90a gfx942 gfx950
declare i32 @llvm.amdgcn.workgroup.id.x()
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %r = call i32 @llvm.amdgcn.workgroup.id.x()
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.workgroup.id.y: gfx90a gfx942 gfx950
declare i32 @llvm.amdgcn.workgroup.id.y()
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %r = call i32 @llvm.amdgcn.workgroup.id.y()
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.workgroup.id.z: gfx90a gfx942 gfx950
declare i32 @llvm.amdgcn.workgroup.id.z()
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %r = call i32 @llvm.amdgcn.workgroup.id.z()
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.kernarg.segment.ptr: gfx90a gfx942 gfx950
declare ptr addrspace(4) @llvm.amdgcn.kernarg.segment.ptr()
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %r = call ptr addrspace(4) @llvm.amdgcn.kernarg.segment.ptr()
  store ptr addrspace(4) %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.implicitarg.ptr: gfx90a gfx942 gfx950
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %r = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  store ptr addrspace(4) %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.dispatch.ptr: gfx90a gfx942 gfx950
declare ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %r = call ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
  store ptr addrspace(4) %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.s.barrier: gfx90a gfx942 gfx950
declare void @llvm.amdgcn.s.barrier()
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  call void @llvm.amdgcn.s.barrier()
  ret void
}

; ---- llvm.amdgcn.wave.barrier: gfx90a gfx942 gfx950
declare void @llvm.amdgcn.wave.barrier()
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  call void @llvm.amdgcn.wave.barrier()
  ret void
}

; ---- llvm.amdgcn.s.waitcnt: gfx90a gfx942 gfx950
declare void @llvm.amdgcn.s.waitcnt(i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  call void @llvm.amdgcn.s.waitcnt(i32 0)
  ret void
}

; ---- llvm.amdgcn.sched.barrier: gfx90a gfx942 gfx950
declare void @llvm.amdgcn.sched.barrier(i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  call void @llvm.amdgcn.sched.barrier(i32 0)
  ret void
}

; ---- llvm.amdgcn.sched.group.barrier: gfx90a gfx942 gfx950
declare void @llvm.amdgcn.sched.group.barrier(i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  call void @llvm.amdgcn.sched.group.barrier(i32 8, i32 1, i32 0)
  ret void
}

; ---- llvm.amdgcn.iglp.opt: gfx90a gfx942 gfx950
declare void @llvm.amdgcn.iglp.opt(i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  call void @llvm.amdgcn.iglp.opt(i32 0)
  ret void
}

; ---- llvm.amdgcn.s.setprio: gfx90a gfx942 gfx950
declare void @llvm.amdgcn.s.setprio(i16)
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  call void @llvm.amdgcn.s.setprio(i16 1)
  ret void
}

; ---- llvm.amdgcn.s.sleep: gfx90a gfx942 gfx950
declare void @llvm.amdgcn.s.sleep(i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  call void @llvm.amdgcn.s.sleep(i32 1)
  ret void
}

; ---- llvm.amdgcn.s.memtime: gfx90a gfx942 gfx950
declare i64 @llvm.amdgcn.s.memtime()
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %r = call i64 @llvm.amdgcn.s.memtime()
  store i64 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.s.memrealtime: gfx90a gfx942 gfx950
declare i64 @llvm.amdgcn.s.memrealtime()
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %r = call i64 @llvm.amdgcn.s.memrealtime()
  store i64 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.s.getpc: gfx90a gfx942 gfx950
declare i64 @llvm.amdgcn.s.getpc()
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %r = call i64 @llvm.amdgcn.s.getpc()
  store i64 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.ds.bpermute: gfx90a gfx942 gfx950
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0, i32 %p1) {
  %r = call i32 @llvm.amdgcn.ds.bpermute(i32 %p0, i32 %p1)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.ds.permute: gfx90a gfx942 gfx950
declare i32 @llvm.amdgcn.ds.permute(i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0, i32 %p1) {
  %r = call i32 @llvm.amdgcn.ds.permute(i32 %p0, i32 %p1)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.ds.swizzle: gfx90a gfx942 gfx950
declare i32 @llvm.amdgcn.ds.swizzle(i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0) {
  %r = call i32 @llvm.amdgcn.ds.swizzle(i32 %p0, i32 31)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.update.dpp: gfx90a gfx942 gfx950
declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0, i32 %p1) {
  %r = call i32 @llvm.amdgcn.update.dpp.i32(i32 %p0, i32 %p1, i32 273, i32 15, i32 15, i1 0)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mov.dpp: gfx90a gfx942 gfx950
declare i32 @llvm.amdgcn.mov.dpp.i32(i32, i32, i32, i32, i1)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0) {
  %r = call i32 @llvm.amdgcn.mov.dpp.i32(i32 %p0, i32 273, i32 15, i32 15, i1 0)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.readlane: gfx90a gfx942 gfx950
declare i32 @llvm.amdgcn.readlane.i32(i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0, i32 %p1) {
  %r = call i32 @llvm.amdgcn.readlane.i32(i32 %p0, i32 %p1)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.readfirstlane: gfx90a gfx942 gfx950
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0) {
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %p0)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.writelane: gfx90a gfx942 gfx950
declare i32 @llvm.amdgcn.writelane.i32(i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0, i32 %p1, i32 %p2) {
  %r = call i32 @llvm.amdgcn.writelane.i32(i32 %p0, i32 %p1, i32 %p2)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.ballot: gfx90a gfx942 gfx950
declare i64 @llvm.amdgcn.ballot.i64(i1)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i1 %p0) {
  %r = call i64 @llvm.amdgcn.ballot.i64(i1 %p0)
  store i64 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mbcnt.lo: gfx90a gfx942 gfx950
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0, i32 %p1) {
  %r = call i32 @llvm.amdgcn.mbcnt.lo(i32 %p0, i32 %p1)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mbcnt.hi: gfx90a gfx942 gfx950
declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0, i32 %p1) {
  %r = call i32 @llvm.amdgcn.mbcnt.hi(i32 %p0, i32 %p1)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.exp2: gfx90a gfx942 gfx950
declare float @llvm.amdgcn.exp2.f32(float)
define amdgpu_kernel void @k(ptr addrspace(1) %out, float %p0) {
  %r = call float @llvm.amdgcn.exp2.f32(float %p0)
  store float %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.log: gfx90a gfx942 gfx950
declare float @llvm.amdgcn.log.f32(float)
define amdgpu_kernel void @k(ptr addrspace(1) %out, float %p0) {
  %r = call float @llvm.amdgcn.log.f32(float %p0)
  store float %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.rcp: gfx90a gfx942 gfx950
declare float @llvm.amdgcn.rcp.f32(float)
define amdgpu_kernel void @k(ptr addrspace(1) %out, float %p0) {
  %r = call float @llvm.amdgcn.rcp.f32(float %p0)
  store float %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.rsq: gfx90a gfx942 gfx950
declare float @llvm.amdgcn.rsq.f32(float)
define amdgpu_kernel void @k(ptr addrspace(1) %out, float %p0) {
  %r = call float @llvm.amdgcn.rsq.f32(float %p0)
  store float %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.sqrt: gfx90a gfx942 gfx950
declare float @llvm.amdgcn.sqrt.f32(float)
define amdgpu_kernel void @k(ptr addrspace(1) %out, float %p0) {
  %r = call float @llvm.amdgcn.sqrt.f32(float %p0)
  store float %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.fmed3: gfx90a gfx942 gfx950
declare float @llvm.amdgcn.fmed3.f32(float, float, float)
define amdgpu_kernel void @k(ptr addrspace(1) %out, float %p0, float %p1, float %p2) {
  %r = call float @llvm.amdgcn.fmed3.f32(float %p0, float %p1, float %p2)
  store float %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.cvt.pkrtz: gfx90a gfx942 gfx950
declare <2 x half> @llvm.amdgcn.cvt.pkrtz(float, float)
define amdgpu_kernel void @k(ptr addrspace(1) %out, float %p0, float %p1) {
  %r = call <2 x half> @llvm.amdgcn.cvt.pkrtz(float %p0, float %p1)
  store <2 x half> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.fdot2: gfx90a gfx942 gfx950
declare float @llvm.amdgcn.fdot2(<2 x half>, <2 x half>, float, i1)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <2 x half> %p0, <2 x half> %p1, float %p2) {
  %r = call float @llvm.amdgcn.fdot2(<2 x half> %p0, <2 x half> %p1, float %p2, i1 0)
  store float %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.sdot4: gfx90a gfx942 gfx950
declare i32 @llvm.amdgcn.sdot4(i32, i32, i32, i1)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0, i32 %p1, i32 %p2) {
  %r = call i32 @llvm.amdgcn.sdot4(i32 %p0, i32 %p1, i32 %p2, i1 0)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.make.buffer.rsrc: gfx90a gfx942 gfx950
declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1), i16, i64, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %p0) {
  %r = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %p0, i16 0, i64 1024, i32 159744)
  store ptr addrspace(8) %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.raw.ptr.buffer.load: gfx90a gfx942 gfx950
declare <4 x float> @llvm.amdgcn.raw.ptr.buffer.load.v4f32(ptr addrspace(8), i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(8) %p0, i32 %p1) {
  %r = call <4 x float> @llvm.amdgcn.raw.ptr.buffer.load.v4f32(ptr addrspace(8) %p0, i32 %p1, i32 0, i32 0)
  store <4 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.raw.ptr.buffer.store: gfx90a gfx942 gfx950
declare void @llvm.amdgcn.raw.ptr.buffer.store.v4f32(<4 x float>, ptr addrspace(8), i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <4 x float> %p0, ptr addrspace(8) %p1, i32 %p2) {
  call void @llvm.amdgcn.raw.ptr.buffer.store.v4f32(<4 x float> %p0, ptr addrspace(8) %p1, i32 %p2, i32 0, i32 0)
  ret void
}

; ---- llvm.amdgcn.global.load.lds size 4: gfx90a gfx942 gfx950
declare void @llvm.amdgcn.global.load.lds(ptr addrspace(1), ptr addrspace(3), i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %p0, ptr addrspace(3) %p1) {
  call void @llvm.amdgcn.global.load.lds(ptr addrspace(1) %p0, ptr addrspace(3) %p1, i32 4, i32 0, i32 0)
  ret void
}

; ---- llvm.amdgcn.global.load.lds size 16: gfx950
declare void @llvm.amdgcn.global.load.lds(ptr addrspace(1), ptr addrspace(3), i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %p0, ptr addrspace(3) %p1) {
  call void @llvm.amdgcn.global.load.lds(ptr addrspace(1) %p0, ptr addrspace(3) %p1, i32 16, i32 0, i32 0)
  ret void
}

; ---- llvm.amdgcn.global.load.lds size 12: gfx950
declare void @llvm.amdgcn.global.load.lds(ptr addrspace(1), ptr addrspace(3), i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %p0, ptr addrspace(3) %p1) {
  call void @llvm.amdgcn.global.load.lds(ptr addrspace(1) %p0, ptr addrspace(3) %p1, i32 12, i32 0, i32 0)
  ret void
}

; ---- llvm.amdgcn.global.load.lds size 2: gfx90a gfx942 gfx950
declare void @llvm.amdgcn.global.load.lds(ptr addrspace(1), ptr addrspace(3), i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %p0, ptr addrspace(3) %p1) {
  call void @llvm.amdgcn.global.load.lds(ptr addrspace(1) %p0, ptr addrspace(3) %p1, i32 2, i32 0, i32 0)
  ret void
}

; ---- llvm.amdgcn.cvt.f32.fp8: gfx942 gfx950
declare float @llvm.amdgcn.cvt.f32.fp8(i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0) {
  %r = call float @llvm.amdgcn.cvt.f32.fp8(i32 %p0, i32 0)
  store float %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.cvt.f32.bf8: gfx942 gfx950
declare float @llvm.amdgcn.cvt.f32.bf8(i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0) {
  %r = call float @llvm.amdgcn.cvt.f32.bf8(i32 %p0, i32 0)
  store float %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.cvt.pk.f32.fp8: gfx942 gfx950
declare <2 x float> @llvm.amdgcn.cvt.pk.f32.fp8(i32, i1)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0) {
  %r = call <2 x float> @llvm.amdgcn.cvt.pk.f32.fp8(i32 %p0, i1 0)
  store <2 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.cvt.pk.fp8.f32: gfx942 gfx950
declare i32 @llvm.amdgcn.cvt.pk.fp8.f32(float, float, i32, i1)
define amdgpu_kernel void @k(ptr addrspace(1) %out, float %p0, float %p1, i32 %p2) {
  %r = call i32 @llvm.amdgcn.cvt.pk.fp8.f32(float %p0, float %p1, i32 %p2, i1 0)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.cvt.pk.bf8.f32: gfx942 gfx950
declare i32 @llvm.amdgcn.cvt.pk.bf8.f32(float, float, i32, i1)
define amdgpu_kernel void @k(ptr addrspace(1) %out, float %p0, float %p1, i32 %p2) {
  %r = call i32 @llvm.amdgcn.cvt.pk.bf8.f32(float %p0, float %p1, i32 %p2, i1 0)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.cvt.sr.fp8.f32: gfx942 gfx950
declare i32 @llvm.amdgcn.cvt.sr.fp8.f32(float, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, float %p0, i32 %p1, i32 %p2) {
  %r = call i32 @llvm.amdgcn.cvt.sr.fp8.f32(float %p0, i32 %p1, i32 %p2, i32 0)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.permlane32.swap: gfx950
declare {i32, i32} @llvm.amdgcn.permlane32.swap(i32, i32, i1, i1)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0, i32 %p1) {
  %r = call {i32, i32} @llvm.amdgcn.permlane32.swap(i32 %p0, i32 %p1, i1 0, i1 0)
  store {i32, i32} %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.permlane16.swap: gfx950
declare {i32, i32} @llvm.amdgcn.permlane16.swap(i32, i32, i1, i1)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0, i32 %p1) {
  %r = call {i32, i32} @llvm.amdgcn.permlane16.swap(i32 %p0, i32 %p1, i1 0, i1 0)
  store {i32, i32} %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.ds.read.tr4.b64: gfx950
declare <2 x i32> @llvm.amdgcn.ds.read.tr4.b64.v2i32(ptr addrspace(3))
define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(3) %p0) {
  %r = call <2 x i32> @llvm.amdgcn.ds.read.tr4.b64.v2i32(ptr addrspace(3) %p0)
  store <2 x i32> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.ds.read.tr8.b64: gfx950
declare <2 x i32> @llvm.amdgcn.ds.read.tr8.b64.v2i32(ptr addrspace(3))
define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(3) %p0) {
  %r = call <2 x i32> @llvm.amdgcn.ds.read.tr8.b64.v2i32(ptr addrspace(3) %p0)
  store <2 x i32> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.ds.read.tr6.b96: gfx950
declare <3 x i32> @llvm.amdgcn.ds.read.tr6.b96.v3i32(ptr addrspace(3))
define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(3) %p0) {
  %r = call <3 x i32> @llvm.amdgcn.ds.read.tr6.b96.v3i32(ptr addrspace(3) %p0)
  store <3 x i32> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.ds.read.tr16.b64: gfx950
declare <4 x i16> @llvm.amdgcn.ds.read.tr16.b64.v4i16(ptr addrspace(3))
define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(3) %p0) {
  %r = call <4 x i16> @llvm.amdgcn.ds.read.tr16.b64.v4i16(ptr addrspace(3) %p0)
  store <4 x i16> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.cvt.scalef32.pk.fp8.f32: gfx950
declare <2 x i16> @llvm.amdgcn.cvt.scalef32.pk.fp8.f32(<2 x i16>, float, float, float, i1)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <2 x i16> %p0, float %p1, float %p2, float %p3) {
  %r = call <2 x i16> @llvm.amdgcn.cvt.scalef32.pk.fp8.f32(<2 x i16> %p0, float %p1, float %p2, float %p3, i1 0)
  store <2 x i16> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.permlanex16: 
declare i32 @llvm.amdgcn.permlanex16.i32(i32, i32, i32, i32, i1, i1)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0, i32 %p1, i32 %p2, i32 %p3) {
  %r = call i32 @llvm.amdgcn.permlanex16.i32(i32 %p0, i32 %p1, i32 %p2, i32 %p3, i1 0, i1 0)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.wmma.f32.16x16x16.f16: 
declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v16f16(<16 x half>, <16 x half>, <8 x float>)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <16 x half> %p0, <16 x half> %p1, <8 x float> %p2) {
  %r = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v16f16(<16 x half> %p0, <16 x half> %p1, <8 x float> %p2)
  store <8 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.sudot4: 
declare i32 @llvm.amdgcn.sudot4(i1, i32, i1, i32, i32, i1)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p1, i32 %p3, i32 %p4) {
  %r = call i32 @llvm.amdgcn.sudot4(i1 0, i32 %p1, i1 0, i32 %p3, i32 %p4, i1 0)
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.s.barrier.signal: 
declare void @llvm.amdgcn.s.barrier.signal(i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  call void @llvm.amdgcn.s.barrier.signal(i32 -1)
  ret void
}

; ---- llvm.x86.sse2.pause: 
declare void @llvm.x86.sse2.pause()
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  call void @llvm.x86.sse2.pause()
  ret void
}

; ---- llvm.nvvm.read.ptx.sreg.tid.x: 
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %r = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  store i32 %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.32x32x1f32: gfx90a gfx942 gfx950
declare <32 x float> @llvm.amdgcn.mfma.f32.32x32x1f32(float, float, <32 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, float %p0, float %p1, <32 x float> %p2) {
  %r = call <32 x float> @llvm.amdgcn.mfma.f32.32x32x1f32(float %p0, float %p1, <32 x float> %p2, i32 0, i32 0, i32 0)
  store <32 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.16x16x1f32: gfx90a gfx942 gfx950
declare <16 x float> @llvm.amdgcn.mfma.f32.16x16x1f32(float, float, <16 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, float %p0, float %p1, <16 x float> %p2) {
  %r = call <16 x float> @llvm.amdgcn.mfma.f32.16x16x1f32(float %p0, float %p1, <16 x float> %p2, i32 0, i32 0, i32 0)
  store <16 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.4x4x1f32: gfx90a gfx942 gfx950
declare <4 x float> @llvm.amdgcn.mfma.f32.4x4x1f32(float, float, <4 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, float %p0, float %p1, <4 x float> %p2) {
  %r = call <4 x float> @llvm.amdgcn.mfma.f32.4x4x1f32(float %p0, float %p1, <4 x float> %p2, i32 0, i32 0, i32 0)
  store <4 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.32x32x2f32: gfx90a gfx942 gfx950
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x2f32(float, float, <16 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, float %p0, float %p1, <16 x float> %p2) {
  %r = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x2f32(float %p0, float %p1, <16 x float> %p2, i32 0, i32 0, i32 0)
  store <16 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.16x16x4f32: gfx90a gfx942 gfx950
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float, float, <4 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, float %p0, float %p1, <4 x float> %p2) {
  %r = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32(float %p0, float %p1, <4 x float> %p2, i32 0, i32 0, i32 0)
  store <4 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.32x32x4f16: gfx90a gfx942 gfx950
declare <32 x float> @llvm.amdgcn.mfma.f32.32x32x4f16(<4 x half>, <4 x half>, <32 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <4 x half> %p0, <4 x half> %p1, <32 x float> %p2) {
  %r = call <32 x float> @llvm.amdgcn.mfma.f32.32x32x4f16(<4 x half> %p0, <4 x half> %p1, <32 x float> %p2, i32 0, i32 0, i32 0)
  store <32 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.16x16x4f16: gfx90a gfx942 gfx950
declare <16 x float> @llvm.amdgcn.mfma.f32.16x16x4f16(<4 x half>, <4 x half>, <16 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <4 x half> %p0, <4 x half> %p1, <16 x float> %p2) {
  %r = call <16 x float> @llvm.amdgcn.mfma.f32.16x16x4f16(<4 x half> %p0, <4 x half> %p1, <16 x float> %p2, i32 0, i32 0, i32 0)
  store <16 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.4x4x4f16: gfx90a gfx942 gfx950
declare <4 x float> @llvm.amdgcn.mfma.f32.4x4x4f16(<4 x half>, <4 x half>, <4 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <4 x half> %p0, <4 x half> %p1, <4 x float> %p2) {
  %r = call <4 x float> @llvm.amdgcn.mfma.f32.4x4x4f16(<4 x half> %p0, <4 x half> %p1, <4 x float> %p2, i32 0, i32 0, i32 0)
  store <4 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.32x32x8f16: gfx90a gfx942 gfx950
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x8f16(<4 x half>, <4 x half>, <16 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <4 x half> %p0, <4 x half> %p1, <16 x float> %p2) {
  %r = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x8f16(<4 x half> %p0, <4 x half> %p1, <16 x float> %p2, i32 0, i32 0, i32 0)
  store <16 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.16x16x16f16: gfx90a gfx942 gfx950
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x16f16(<4 x half>, <4 x half>, <4 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <4 x half> %p0, <4 x half> %p1, <4 x float> %p2) {
  %r = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16f16(<4 x half> %p0, <4 x half> %p1, <4 x float> %p2, i32 0, i32 0, i32 0)
  store <4 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.i32.32x32x4i8: gfx90a gfx942 gfx950
declare <32 x i32> @llvm.amdgcn.mfma.i32.32x32x4i8(i32, i32, <32 x i32>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0, i32 %p1, <32 x i32> %p2) {
  %r = call <32 x i32> @llvm.amdgcn.mfma.i32.32x32x4i8(i32 %p0, i32 %p1, <32 x i32> %p2, i32 0, i32 0, i32 0)
  store <32 x i32> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.i32.16x16x4i8: gfx90a gfx942 gfx950
declare <16 x i32> @llvm.amdgcn.mfma.i32.16x16x4i8(i32, i32, <16 x i32>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0, i32 %p1, <16 x i32> %p2) {
  %r = call <16 x i32> @llvm.amdgcn.mfma.i32.16x16x4i8(i32 %p0, i32 %p1, <16 x i32> %p2, i32 0, i32 0, i32 0)
  store <16 x i32> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.i32.4x4x4i8: gfx90a gfx942 gfx950
declare <4 x i32> @llvm.amdgcn.mfma.i32.4x4x4i8(i32, i32, <4 x i32>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0, i32 %p1, <4 x i32> %p2) {
  %r = call <4 x i32> @llvm.amdgcn.mfma.i32.4x4x4i8(i32 %p0, i32 %p1, <4 x i32> %p2, i32 0, i32 0, i32 0)
  store <4 x i32> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.i32.32x32x8i8: gfx90a
declare <16 x i32> @llvm.amdgcn.mfma.i32.32x32x8i8(i32, i32, <16 x i32>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0, i32 %p1, <16 x i32> %p2) {
  %r = call <16 x i32> @llvm.amdgcn.mfma.i32.32x32x8i8(i32 %p0, i32 %p1, <16 x i32> %p2, i32 0, i32 0, i32 0)
  store <16 x i32> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.i32.16x16x16i8: gfx90a
declare <4 x i32> @llvm.amdgcn.mfma.i32.16x16x16i8(i32, i32, <4 x i32>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %p0, i32 %p1, <4 x i32> %p2) {
  %r = call <4 x i32> @llvm.amdgcn.mfma.i32.16x16x16i8(i32 %p0, i32 %p1, <4 x i32> %p2, i32 0, i32 0, i32 0)
  store <4 x i32> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.32x32x2bf16: gfx90a
declare <32 x float> @llvm.amdgcn.mfma.f32.32x32x2bf16(<2 x i16>, <2 x i16>, <32 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <2 x i16> %p0, <2 x i16> %p1, <32 x float> %p2) {
  %r = call <32 x float> @llvm.amdgcn.mfma.f32.32x32x2bf16(<2 x i16> %p0, <2 x i16> %p1, <32 x float> %p2, i32 0, i32 0, i32 0)
  store <32 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.16x16x2bf16: gfx90a
declare <16 x float> @llvm.amdgcn.mfma.f32.16x16x2bf16(<2 x i16>, <2 x i16>, <16 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <2 x i16> %p0, <2 x i16> %p1, <16 x float> %p2) {
  %r = call <16 x float> @llvm.amdgcn.mfma.f32.16x16x2bf16(<2 x i16> %p0, <2 x i16> %p1, <16 x float> %p2, i32 0, i32 0, i32 0)
  store <16 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.4x4x2bf16: gfx90a
declare <4 x float> @llvm.amdgcn.mfma.f32.4x4x2bf16(<2 x i16>, <2 x i16>, <4 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <2 x i16> %p0, <2 x i16> %p1, <4 x float> %p2) {
  %r = call <4 x float> @llvm.amdgcn.mfma.f32.4x4x2bf16(<2 x i16> %p0, <2 x i16> %p1, <4 x float> %p2, i32 0, i32 0, i32 0)
  store <4 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.32x32x4bf16: gfx90a
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x4bf16(<2 x i16>, <2 x i16>, <16 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <2 x i16> %p0, <2 x i16> %p1, <16 x float> %p2) {
  %r = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x4bf16(<2 x i16> %p0, <2 x i16> %p1, <16 x float> %p2, i32 0, i32 0, i32 0)
  store <16 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.16x16x8bf16: gfx90a
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x8bf16(<2 x i16>, <2 x i16>, <4 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <2 x i16> %p0, <2 x i16> %p1, <4 x float> %p2) {
  %r = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x8bf16(<2 x i16> %p0, <2 x i16> %p1, <4 x float> %p2, i32 0, i32 0, i32 0)
  store <4 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.32x32x4bf16.1k: gfx90a gfx942 gfx950
declare <32 x float> @llvm.amdgcn.mfma.f32.32x32x4bf16.1k(<4 x i16>, <4 x i16>, <32 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <4 x i16> %p0, <4 x i16> %p1, <32 x float> %p2) {
  %r = call <32 x float> @llvm.amdgcn.mfma.f32.32x32x4bf16.1k(<4 x i16> %p0, <4 x i16> %p1, <32 x float> %p2, i32 0, i32 0, i32 0)
  store <32 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.16x16x4bf16.1k: gfx90a gfx942 gfx950
declare <16 x float> @llvm.amdgcn.mfma.f32.16x16x4bf16.1k(<4 x i16>, <4 x i16>, <16 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <4 x i16> %p0, <4 x i16> %p1, <16 x float> %p2) {
  %r = call <16 x float> @llvm.amdgcn.mfma.f32.16x16x4bf16.1k(<4 x i16> %p0, <4 x i16> %p1, <16 x float> %p2, i32 0, i32 0, i32 0)
  store <16 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.4x4x4bf16.1k: gfx90a gfx942 gfx950
declare <4 x float> @llvm.amdgcn.mfma.f32.4x4x4bf16.1k(<4 x i16>, <4 x i16>, <4 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <4 x i16> %p0, <4 x i16> %p1, <4 x float> %p2) {
  %r = call <4 x float> @llvm.amdgcn.mfma.f32.4x4x4bf16.1k(<4 x i16> %p0, <4 x i16> %p1, <4 x float> %p2, i32 0, i32 0, i32 0)
  store <4 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.32x32x8bf16.1k: gfx90a gfx942 gfx950
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x8bf16.1k(<4 x i16>, <4 x i16>, <16 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <4 x i16> %p0, <4 x i16> %p1, <16 x float> %p2) {
  %r = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x8bf16.1k(<4 x i16> %p0, <4 x i16> %p1, <16 x float> %p2, i32 0, i32 0, i32 0)
  store <16 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.16x16x16bf16.1k: gfx90a gfx942 gfx950
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16>, <4 x i16>, <4 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <4 x i16> %p0, <4 x i16> %p1, <4 x float> %p2) {
  %r = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(<4 x i16> %p0, <4 x i16> %p1, <4 x float> %p2, i32 0, i32 0, i32 0)
  store <4 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f64.16x16x4f64: gfx90a gfx942 gfx950
declare <4 x double> @llvm.amdgcn.mfma.f64.16x16x4f64(double, double, <4 x double>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, double %p0, double %p1, <4 x double> %p2) {
  %r = call <4 x double> @llvm.amdgcn.mfma.f64.16x16x4f64(double %p0, double %p1, <4 x double> %p2, i32 0, i32 0, i32 0)
  store <4 x double> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f64.4x4x4f64: gfx90a gfx942 gfx950
declare double @llvm.amdgcn.mfma.f64.4x4x4f64(double, double, double, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, double %p0, double %p1, double %p2) {
  %r = call double @llvm.amdgcn.mfma.f64.4x4x4f64(double %p0, double %p1, double %p2, i32 0, i32 0, i32 0)
  store double %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.i32.16x16x32.i8: gfx942 gfx950
declare <4 x i32> @llvm.amdgcn.mfma.i32.16x16x32.i8(i64, i64, <4 x i32>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i64 %p0, i64 %p1, <4 x i32> %p2) {
  %r = call <4 x i32> @llvm.amdgcn.mfma.i32.16x16x32.i8(i64 %p0, i64 %p1, <4 x i32> %p2, i32 0, i32 0, i32 0)
  store <4 x i32> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.i32.32x32x16.i8: gfx942 gfx950
declare <16 x i32> @llvm.amdgcn.mfma.i32.32x32x16.i8(i64, i64, <16 x i32>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i64 %p0, i64 %p1, <16 x i32> %p2) {
  %r = call <16 x i32> @llvm.amdgcn.mfma.i32.32x32x16.i8(i64 %p0, i64 %p1, <16 x i32> %p2, i32 0, i32 0, i32 0)
  store <16 x i32> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.16x16x8.xf32: gfx942
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x8.xf32(<2 x float>, <2 x float>, <4 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <2 x float> %p0, <2 x float> %p1, <4 x float> %p2) {
  %r = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x8.xf32(<2 x float> %p0, <2 x float> %p1, <4 x float> %p2, i32 0, i32 0, i32 0)
  store <4 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.32x32x4.xf32: gfx942
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x4.xf32(<2 x float>, <2 x float>, <16 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <2 x float> %p0, <2 x float> %p1, <16 x float> %p2) {
  %r = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x4.xf32(<2 x float> %p0, <2 x float> %p1, <16 x float> %p2, i32 0, i32 0, i32 0)
  store <16 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.16x16x32.f16: gfx950
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.f16(<8 x half>, <8 x half>, <4 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <8 x half> %p0, <8 x half> %p1, <4 x float> %p2) {
  %r = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.f16(<8 x half> %p0, <8 x half> %p1, <4 x float> %p2, i32 0, i32 0, i32 0)
  store <4 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.32x32x16.f16: gfx950
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x16.f16(<8 x half>, <8 x half>, <16 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <8 x half> %p0, <8 x half> %p1, <16 x float> %p2) {
  %r = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x16.f16(<8 x half> %p0, <8 x half> %p1, <16 x float> %p2, i32 0, i32 0, i32 0)
  store <16 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.i32.16x16x64.i8: gfx950
declare <4 x i32> @llvm.amdgcn.mfma.i32.16x16x64.i8(<4 x i32>, <4 x i32>, <4 x i32>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <4 x i32> %p0, <4 x i32> %p1, <4 x i32> %p2) {
  %r = call <4 x i32> @llvm.amdgcn.mfma.i32.16x16x64.i8(<4 x i32> %p0, <4 x i32> %p1, <4 x i32> %p2, i32 0, i32 0, i32 0)
  store <4 x i32> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.i32.32x32x32.i8: gfx950
declare <16 x i32> @llvm.amdgcn.mfma.i32.32x32x32.i8(<4 x i32>, <4 x i32>, <16 x i32>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <4 x i32> %p0, <4 x i32> %p1, <16 x i32> %p2) {
  %r = call <16 x i32> @llvm.amdgcn.mfma.i32.32x32x32.i8(<4 x i32> %p0, <4 x i32> %p1, <16 x i32> %p2, i32 0, i32 0, i32 0)
  store <16 x i32> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.16x16x32.bf16: gfx950
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat>, <8 x bfloat>, <4 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <8 x bfloat> %p0, <8 x bfloat> %p1, <4 x float> %p2) {
  %r = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(<8 x bfloat> %p0, <8 x bfloat> %p1, <4 x float> %p2, i32 0, i32 0, i32 0)
  store <4 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.32x32x16.bf16: gfx950
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x16.bf16(<8 x bfloat>, <8 x bfloat>, <16 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, <8 x bfloat> %p0, <8 x bfloat> %p1, <16 x float> %p2) {
  %r = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x16.bf16(<8 x bfloat> %p0, <8 x bfloat> %p1, <16 x float> %p2, i32 0, i32 0, i32 0)
  store <16 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.16x16x32.bf8.bf8: gfx942 gfx950
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf8.bf8(i64, i64, <4 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i64 %p0, i64 %p1, <4 x float> %p2) {
  %r = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf8.bf8(i64 %p0, i64 %p1, <4 x float> %p2, i32 0, i32 0, i32 0)
  store <4 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.16x16x32.bf8.fp8: gfx942 gfx950
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf8.fp8(i64, i64, <4 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i64 %p0, i64 %p1, <4 x float> %p2) {
  %r = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf8.fp8(i64 %p0, i64 %p1, <4 x float> %p2, i32 0, i32 0, i32 0)
  store <4 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.16x16x32.fp8.bf8: gfx942 gfx950
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.fp8.bf8(i64, i64, <4 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i64 %p0, i64 %p1, <4 x float> %p2) {
  %r = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.fp8.bf8(i64 %p0, i64 %p1, <4 x float> %p2, i32 0, i32 0, i32 0)
  store <4 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8: gfx942 gfx950
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8(i64, i64, <4 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i64 %p0, i64 %p1, <4 x float> %p2) {
  %r = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8(i64 %p0, i64 %p1, <4 x float> %p2, i32 0, i32 0, i32 0)
  store <4 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.32x32x16.bf8.bf8: gfx942 gfx950
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x16.bf8.bf8(i64, i64, <16 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i64 %p0, i64 %p1, <16 x float> %p2) {
  %r = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x16.bf8.bf8(i64 %p0, i64 %p1, <16 x float> %p2, i32 0, i32 0, i32 0)
  store <16 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.32x32x16.bf8.fp8: gfx942 gfx950
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x16.bf8.fp8(i64, i64, <16 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i64 %p0, i64 %p1, <16 x float> %p2) {
  %r = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x16.bf8.fp8(i64 %p0, i64 %p1, <16 x float> %p2, i32 0, i32 0, i32 0)
  store <16 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.32x32x16.fp8.bf8: gfx942 gfx950
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x16.fp8.bf8(i64, i64, <16 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i64 %p0, i64 %p1, <16 x float> %p2) {
  %r = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x16.fp8.bf8(i64 %p0, i64 %p1, <16 x float> %p2, i32 0, i32 0, i32 0)
  store <16 x float> %r, ptr addrspace(1) %out
  ret void
}

; ---- llvm.amdgcn.mfma.f32.32x32x16.fp8.fp8: gfx942 gfx950
declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x16.fp8.fp8(i64, i64, <16 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %out, i64 %p0, i64 %p1, <16 x float> %p2) {
  %r = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x16.fp8.fp8(i64 %p0, i64 %p1, <16 x float> %p2, i32 0, i32 0, i32 0)
  store <16 x float> %r, ptr addrspace(1) %out
  ret void
}

