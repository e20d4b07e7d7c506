dtrace: failed to compile script err.D_SYNTAX.no-body.d: [D_SYNTAX] line 2: expected predicate and/or actions following probe description
