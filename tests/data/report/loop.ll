; Nested loops: the report's main loop is the outer one (the backward branch that spans the most
; instructions), which contains the inner one.
define amdgpu_kernel void @loop(ptr addrspace(1) %a, ptr addrspace(1) %out, i32 %n, i32 %m) #0 {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  %acc = phi float [ 0.0, %entry ], [ %acc.out, %outer.latch ]
  %row = mul i32 %i, %m
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j.next, %inner ]
  %s = phi float [ %acc, %outer ], [ %s.next, %inner ]
  %idx = add i32 %row, %j
  %idx2 = add i32 %idx, %id
  %p = getelementptr float, ptr addrspace(1) %a, i32 %idx2
  %x = load float, ptr addrspace(1) %p, align 4
  %s.next = call float @llvm.fma.f32(float %x, float %x, float %s)
  %j.next = add i32 %j, 1
  %jc = icmp slt i32 %j.next, %m
  br i1 %jc, label %inner, label %outer.latch
outer.latch:
  %sq = call float @llvm.sqrt.f32(float %s.next)
  %acc.out = fadd float %sq, 1.0
  %q = getelementptr float, ptr addrspace(1) %out, i32 %i
  store float %acc.out, ptr addrspace(1) %q, align 4
  %i.next = add i32 %i, 1
  %ic = icmp slt i32 %i.next, %n
  br i1 %ic, label %outer, label %exit
exit:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare float @llvm.fma.f32(float, float, float)
declare float @llvm.sqrt.f32(float)
attributes #0 = { "amdgpu-flat-work-group-size"="1,512" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 500}
