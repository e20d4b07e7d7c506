/dev/stdin:3: error: no macro name given in #define directive
dtrace: failed to compile script err.cpp-error.d: Preprocessor failed to process input program
