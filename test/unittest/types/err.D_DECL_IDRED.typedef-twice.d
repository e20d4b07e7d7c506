/* A typedef the program already made is redeclared. */
typedef int new_int;
typedef char new_int;
