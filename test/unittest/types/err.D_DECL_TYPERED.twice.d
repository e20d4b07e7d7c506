/* A struct defined twice. */
struct s { int a; };
struct s { long b; };
