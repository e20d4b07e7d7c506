dtrace: failed to compile script err.D_UNKNOWN.offsetof-nomember.d: [D_UNKNOWN] line 6: failed to determine offset of b: Member name not found
