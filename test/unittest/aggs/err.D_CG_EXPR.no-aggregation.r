dtrace: failed to compile script err.D_CG_EXPR.no-aggregation.d: [D_CG_EXPR] line 4: aggregating function avg( ) may not be called from a D expression (D program context required)
