/*
 * A probe passes integers and pointers, not structs.
 */
struct point {
	int x;
	int y;
};

provider shapes {
	probe moved(struct point);
};
