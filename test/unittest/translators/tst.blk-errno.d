/*
 * b_error of the io translators: a bio's blk_status_t as the errno the
 * kernel reports for it (BLK_STS_OK 0, BLK_STS_NOSPC 3 is ENOSPC, 16 is
 * ENODEV, and a code without a fixed meaning across kernels, 10, is EIO).
 */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d\n", __blk_errno[0], __blk_errno[3],
	    __blk_errno[16], __blk_errno[10]);
	exit(0);
}
