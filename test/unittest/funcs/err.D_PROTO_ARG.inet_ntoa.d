/* inet_ntoa() takes the address of an IPv4 address, not an integer. */
BEGIN
{
	trace(inet_ntoa(0x0100007f));
}
