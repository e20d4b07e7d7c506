dtrace: failed to compile script err.D_KEY_TYPE.aggkey.d: [D_KEY_TYPE] line 6: aggregation key of type double is not supported
