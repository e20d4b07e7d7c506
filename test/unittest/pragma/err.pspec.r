dtrace: failed to compile script err.pspec.d: line 7: expected predicate and/or actions following probe description
