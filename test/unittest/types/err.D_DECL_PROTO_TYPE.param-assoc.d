/* A function's parameter may not be an associative array. */
int f(char c, int a[int]);
