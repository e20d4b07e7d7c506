dtrace: failed to compile script err.D_PRAGMA_DEPEND.member.d: [D_PRAGMA_DEPEND] line 2: program requires member task_struct.no_such_member
