/* An array dimension is a positive constant. */
int a[-7];
