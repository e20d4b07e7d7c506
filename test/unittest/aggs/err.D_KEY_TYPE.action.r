dtrace: failed to compile script err.D_KEY_TYPE.action.d: [D_KEY_TYPE] line 4: void expression may not be used as aggregation index: key #1
