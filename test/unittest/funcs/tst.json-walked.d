/*
 * One json() through a key, an array index and a nested object: small
 * enough for the loop the verifier walks turn by turn where the kernel
 * has neither the number iterator nor bpf_loop (Linux 5.10 to 5.16).
 */
#pragma D option quiet

BEGIN
{
	printf("[%s]\n", json("{\"a\": 1, \"b\": {\"c\": [10, {\"d\": -2.5e3}]}}",
	    "b.c[1].d"));
	exit(0);
}
