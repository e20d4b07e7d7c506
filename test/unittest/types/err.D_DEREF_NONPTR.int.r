dtrace: failed to compile script err.D_DEREF_NONPTR.int.d: [D_DEREF_NONPTR] line 4: cannot dereference non-pointer type
