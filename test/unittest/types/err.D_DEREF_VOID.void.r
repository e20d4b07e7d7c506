dtrace: failed to compile script err.D_DEREF_VOID.void.d: [D_DEREF_VOID] line 4: cannot dereference pointer to void
