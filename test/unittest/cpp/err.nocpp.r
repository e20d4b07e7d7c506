dtrace: -D applies to the C preprocessor, which runs only with -C
