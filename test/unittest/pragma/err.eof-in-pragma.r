dtrace: failed to compile script err.eof-in-pragma.d: line 6: end-of-file encountered before end of control line
