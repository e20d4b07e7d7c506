dtrace: failed to compile script err.D_KEY_TYPE.aggregation.d: [D_KEY_TYPE] line 5: dynamic variable expression may not be used as aggregation index: key #1
