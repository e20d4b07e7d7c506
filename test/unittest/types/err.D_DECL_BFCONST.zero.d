/* A named bit-field has a positive width. */
struct s { int b : 0; };
