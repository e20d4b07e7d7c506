/* A probe description with nothing after it: the error is on its line. */
BEGIN

int i;
