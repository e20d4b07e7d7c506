/* A D array needs a dimension (or keys, for an associative one). */
int a[];
