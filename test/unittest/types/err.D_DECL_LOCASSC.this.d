/* Clause-local variables are not associative arrays. */
this int a[int];
