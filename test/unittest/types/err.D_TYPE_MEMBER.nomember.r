dtrace: failed to compile script err.D_TYPE_MEMBER.nomember.d: [D_TYPE_MEMBER] line 6: b is not a member of struct s
