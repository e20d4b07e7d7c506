/* An associative array's key may not be void. */
int x[void, char];
