/* Layouts as the C compiler makes them (see decls.h and the test types_match_the_c_compiler in crates/dtrace/tests/cli.rs, which compiles the same declarations with cc). */
#pragma D option quiet

struct flags {
	unsigned int a : 3;
	int b : 5;
	unsigned char c;
	unsigned int d : 20;
	unsigned int : 0;
	short e : 4;
	long f;
	char g : 2;
};

union value {
	char c;
	short s;
	long l;
	char bytes[12];
};

enum color { RED, GREEN = 5, BLUE };

struct outer {
	char tag;
	union value v;
	enum color col;
	struct flags fl[2];
	union {
		int i;
		char *p;
	};
	char last;
};

BEGIN
{
	printf("%d %d %d %d\n", sizeof (struct flags), sizeof (union value), sizeof (enum color), sizeof (struct outer));
	printf("%d %d %d %d\n", offsetof(struct flags, c), offsetof(struct flags, f), offsetof(struct outer, v), offsetof(struct outer, col));
	printf("%d %d %d %d\n", offsetof(struct outer, fl), offsetof(struct outer, i), offsetof(struct outer, last), BLUE);
	exit(0);
}
