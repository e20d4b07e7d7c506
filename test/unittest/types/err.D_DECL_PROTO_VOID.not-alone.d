/* void as a parameter stands alone. */
int f(int, void);
