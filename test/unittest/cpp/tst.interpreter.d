#!/usr/sbin/dtrace -Cqs
/*
 * A script whose first line is an interpreter line is preprocessed as
 * well (the line is blanked for cpp).
 */
/* @@runtest-opts: -C -q */
#define MSG "interpreted"

BEGIN
{
	printf("%s\n", MSG);
	exit(0);
}
