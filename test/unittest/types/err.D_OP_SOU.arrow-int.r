dtrace: failed to compile script err.D_OP_SOU.arrow-int.d: [D_OP_SOU] line 4: operator -> cannot be applied to pointer to type "int"; must be applied to a struct or union pointer
