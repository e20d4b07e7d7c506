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
