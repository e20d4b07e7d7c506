/* A translator member the output type does not have. */
struct out { int a; };

translator struct out < int x > {
	b = x;
};
