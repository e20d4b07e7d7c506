dtrace: failed to compile script err.D_DECL_INCOMPLETE.member.d: [D_DECL_INCOMPLETE] line 3: incomplete struct/union/enum struct pirate: p
