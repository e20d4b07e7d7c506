dtrace: failed to compile script err.D_SYNTAX.positional.d: [D_SYNTAX] line 4: format conversion #1 uses unsupported positional format (%n$)
