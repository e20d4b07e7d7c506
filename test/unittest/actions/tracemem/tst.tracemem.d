#pragma D option quiet

/*
 * tracemem() records size bytes of kernel memory and shows them as a hex
 * dump, at most dsize of them when a third argument is given.
 */
BEGIN
{
	this->p = (char *)alloca(20);
	this->p[0] = 0x41;
	this->p[1] = 0x42;
	this->p[2] = 0x0;
	this->p[3] = 0x0;
	this->p[4] = 0x0;
	this->p[5] = 0x0;
	this->p[6] = 0x0;
	this->p[7] = 0x0;
	this->p[8] = 0x0;
	this->p[9] = 0x0;
	this->p[10] = 0x0;
	this->p[11] = 0x0;
	this->p[12] = 0x0;
	this->p[13] = 0x0;
	this->p[14] = 0x0;
	this->p[15] = 0x0;
	this->p[16] = 0x0;
	this->p[17] = 0x7f;
	this->p[18] = 0x0;
	this->p[19] = 0x20;
	tracemem(this->p, 20);
	tracemem(this->p, 20, 3);
	tracemem(this->p, 20, 100);
	exit(0);
}
