/* A string for an integer member. */
struct out { int a; };

translator struct out < int x > {
	a = "text";
};
