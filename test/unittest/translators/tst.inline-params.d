#pragma D option quiet

/*
 * An inline with parameters takes its declared type, as a plain inline
 * does: an integer is converted (300 does not fit a uint8_t), a
 * translation stays a translation (its members are translated, not
 * read from memory at the input's value).
 */
struct out {
	int sum;
	int diff;
};

translator struct out < int X > {
	sum = X + 1;
	diff = X - 1;
};

inline uint8_t low[int x] = x + 0;
inline struct out *both[int x] = xlate<struct out *>(x);

BEGIN
{
	printf("%d %d\n", low[300], sizeof (low[300]));
	printf("%d %d\n", both[10]->sum, both[10]->diff);
	exit(0);
}
