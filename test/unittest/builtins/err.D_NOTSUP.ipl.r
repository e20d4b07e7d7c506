dtrace: failed to compile script err.D_NOTSUP.ipl.d: [D_NOTSUP] line 4: ipl is not available: Linux has no interrupt priority levels
