/*
 * json() (illumos): the value a selector names in a JSON document, as
 * text: keys, array indices, nested objects returned whole, strings as
 * written (escapes kept), NULL for what is not there or not JSON.
 */
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
/* @@needs: iter_num */
