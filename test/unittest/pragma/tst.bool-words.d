/*
 * A boolean option takes a word for its value, in any case: yes, true,
 * on, set, enable, enabled set it; no, false, off, unset, disable,
 * disabled unset it.
 */
#pragma D option quiet=no
#pragma D option quiet=ENABLED
#pragma D option flowindent=On
#pragma D option flowindent=unset

BEGIN
{
	trace("quiet, not indented");
	exit(0);
}
