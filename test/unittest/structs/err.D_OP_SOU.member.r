dtrace: failed to compile script err.D_OP_SOU.member.d: [D_OP_SOU] line 6: operator . cannot be applied to type "double"; must be applied to a struct or union
