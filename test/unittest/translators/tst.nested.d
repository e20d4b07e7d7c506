#pragma D option quiet

/*
 * A translator's struct member is itself a translation, read member by
 * member through ., -> and *.
 */
struct pair { int lo; int hi; };
struct out { int n; struct pair p; };

translator struct pair < int x > {
	lo = x & 0xff;
	hi = x >> 8;
};

translator struct out < int x > {
	n = x;
	p = xlate<struct pair>(x + 1);
};

inline struct out *o = xlate<struct out *>(0x1234);

BEGIN
{
	printf("%x %x %x\n", xlate<struct out>(0x1234).n,
	    xlate<struct out>(0x1234).p.lo, xlate<struct out>(0x1234).p.hi);
	printf("%x %x %x\n", o->p.lo, (*o).p.hi, xlate<struct out *>(0x0201)->p.lo);
	printf("%d %d\n", xlate<psinfo_t>(curthread).pr_start.tv_sec > 1000000000,
	    (*curpsinfo).pr_start.tv_nsec < 1000000000);
	exit(0);
}
