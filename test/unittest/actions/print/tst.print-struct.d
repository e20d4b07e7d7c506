#pragma D option quiet

/*
 * print() shows a value with its type, as illumos does: integers and
 * pointers in hex, characters quoted, a character array holding a string
 * as the string, bit-fields with their width, nested structs indented.
 */
struct foo {
	int a;
	char c;
	char name[8];
	unsigned int bits:3;
	long *p;
	struct {
		short x;
	} in;
	int arr[3];
};

struct foo f;

BEGIN
{
	f.a = 31;
	f.c = 65;
	f.name[0] = 104;
	f.name[1] = 105;
	f.bits = 5;
	f.in.x = 2;
	f.arr[1] = 7;
	print(f);
	printf("\n");
	print(5);
	print((char)66);
	print("str");
	print(f.arr);
	printf("\n");
	exit(0);
}
