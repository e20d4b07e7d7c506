/*
 * json() (illumos): the value a selector names in a JSON document, as
 * text: keys, array indices, nested objects returned whole, strings as
 * written (escapes kept), NULL for what is not there or not JSON.
 *
 * Fifteen json() in one clause: where the kernel has neither the number
 * iterator nor bpf_loop, the verifier walks each json()'s loop turn by
 * turn and two or three fill its million instructions (tst.json-walked.d
 * is the one json() such kernels run).
 */
/* @@needs: bpf_loop */
#pragma D option quiet

BEGIN
{
	j = "{\"a\": 1, \"b\": {\"c\": [10, \"x\", true, {\"d\": -2.5e3}]}, \"s\": \"q\\\"z\"}";
	printf("[%s] [%s] [%s] [%s]\n", json(j, "a"), json(j, "b.c[0]"),
	    json(j, "b.c[1]"), json(j, "b.c[2]"));
	printf("[%s] [%s] [%s]\n", json(j, "b.c[3].d"), json(j, "b.c[3]"),
	    json(j, "s"));
	printf("%d %d %d %d\n", json(j, "nope") == NULL, json(j, "b.c[9]") == NULL,
	    json("[1,2", "[1]") == NULL, json("{\"a\": 0x1}", "a") == NULL);
	printf("[%s] [%s]\n", json("[5, [6, 7]]", "[1][1]"), json(j, "b"));
	exit(0);
}
