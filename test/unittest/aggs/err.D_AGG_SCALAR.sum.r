dtrace: failed to compile script err.D_AGG_SCALAR.sum.d: [D_AGG_SCALAR] line 4: sum( ) argument #1 must be of scalar type
