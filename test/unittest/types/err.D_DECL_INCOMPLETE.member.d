/* A member of a struct not yet defined. */
struct pirate;
struct ship { struct pirate p; };
