/* A translator member follows the rules of assignment: an integer is no pointer. */
struct in { char c; };
struct out { char *p; };

translator struct out < struct in *x > {
	p = x->c;
};
