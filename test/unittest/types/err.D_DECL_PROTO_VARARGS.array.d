/* An associative array has a fixed number of keys. */
int a[...];
