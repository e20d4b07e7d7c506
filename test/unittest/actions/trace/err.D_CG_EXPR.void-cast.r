dtrace: failed to compile script err.D_CG_EXPR.void-cast.d: [D_CG_EXPR] line 4: tracing function trace( ) may not be called from a D expression (D program context required)
