dtrace: failed to compile script err.D_PRED_SCALAR.pred.d: [D_PRED_SCALAR] line 7: predicate result must be of scalar type
