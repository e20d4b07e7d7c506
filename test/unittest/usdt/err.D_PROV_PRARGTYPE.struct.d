/*
 * A probe passes integers, pointers and strings, not structs.
 */
struct point {
	int x;
	int y;
};

provider shapes {
	probe moved(struct point);
};
