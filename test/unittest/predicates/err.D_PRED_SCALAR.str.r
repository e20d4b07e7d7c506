dtrace: failed to compile script err.D_PRED_SCALAR.str.d: [D_PRED_SCALAR] line 6: predicate result must be of scalar type
