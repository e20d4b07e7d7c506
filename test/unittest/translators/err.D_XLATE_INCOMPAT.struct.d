/* A struct member is given by a translation to its own type only. */
struct in { int a; };
struct other { int a; };
struct out { struct in s; };

translator struct other < int x > {
	a = x;
};

translator struct out < int x > {
	s = xlate<struct other>(x);
};
