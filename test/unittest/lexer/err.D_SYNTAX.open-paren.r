dtrace: failed to compile script err.D_SYNTAX.open-paren.d: [D_SYNTAX] line 4: closing ) expected in predicate before /
