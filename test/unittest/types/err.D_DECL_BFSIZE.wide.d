/* A bit-field wider than its type. */
struct s { char a : 9; };
