/*
 * With pspec, what could be a declaration at the outer level is a
 * probe description: this one has no clause.
 */
#pragma D option pspec

int*x
