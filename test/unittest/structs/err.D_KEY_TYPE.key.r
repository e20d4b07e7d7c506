dtrace: failed to compile script err.D_KEY_TYPE.key.d: [D_KEY_TYPE] line 4: void expression may not be used as associative array index: key #1
