dtrace: failed to compile script err.D_PRINTA_AGGKEY.count.d: [D_PRINTA_AGGKEY] line 6: printa( ): @a and @b do not have matching key signatures: @a has 0 keys, @b has 1 key
