dtrace: failed to compile script err.D_PRINTA_AGGARG.second.d: [D_PRINTA_AGGARG] line 4: printa( ) argument #2 is incompatible with prototype:
	prototype: aggregation
	 argument: int
