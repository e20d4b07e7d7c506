dtrace: failed to compile script err.D_OP_LVAL.store.d: [D_OP_LVAL] line 6: operator = requires modifiable lvalue as an operand
