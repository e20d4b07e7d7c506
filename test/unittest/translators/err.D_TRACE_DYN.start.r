dtrace: failed to compile script err.D_TRACE_DYN.start.d: [D_TRACE_DYN] line 4: trace( ) may not be applied to a dynamic expression
