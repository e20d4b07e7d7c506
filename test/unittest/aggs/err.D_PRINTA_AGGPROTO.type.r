dtrace: failed to compile script err.D_PRINTA_AGGPROTO.type.d: [D_PRINTA_AGGPROTO] line 6: printa( ): @b[ ] key #1 is incompatible with @a:
        a key #1: int
        b key #1: string
