dtrace: failed to compile script err.D_SYNTAX.unfinished.d: [D_SYNTAX] line 4: format conversion #2 name expected before end of format string
