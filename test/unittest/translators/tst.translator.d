#pragma D option quiet

/* A program's own translator, used through xlate, an inline and both
   member operators. */
typedef struct pair {
	int first;
	int second;
	char name[8];
} pair_t;

translator pair_t < int64_t x > {
	first = x & 0xffff;
	second = x >> 16;
	name = "pair";
};

inline pair_t *P = xlate<pair_t *>((int64_t)0x30002);

BEGIN
{
	printf("%d %d %s\n", P->first, P->second, P->name);
	printf("%d %d\n", xlate<pair_t>((int64_t)0x50004).second, (*P).first);
	exit(0);
}
