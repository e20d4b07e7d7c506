/* A void parameter has no name. */
int f(void v);
