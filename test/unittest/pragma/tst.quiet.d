#pragma D option quiet

BEGIN
{
	trace("quiet");
	exit(0);
}
