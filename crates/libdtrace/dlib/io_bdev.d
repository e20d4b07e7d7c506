/*
 * The io provider's translators from the block layer's types of Linux
 * 5.12 and later, where a bio names its block_device (bi_bdev) and a
 * partition is a block_device (bd_device). The types are in io.d; the
 * translators for the kernels before are in io_gendisk.d.
 */

#pragma D depends_on library io.d
#pragma D depends_on member bio.bi_bdev

/*
 * b_addr: a bio carries pages, not one mapped buffer (and a page's kernel
 * address needs the kernel's memory map, which a tracing program cannot
 * read here), so it is 0, as in DTrace for Linux. b_resid: the block
 * layer advances bi_iter as a bio completes, so there is no separate
 * residual count; 0. b_error: the bio's blk_status_t as the errno the
 * kernel reports for it (blk_status_to_errno), EIO for codes without a
 * fixed meaning across kernel versions.
 */
translator bufinfo_t < struct bio *B > {
	b_flags = ((B->bi_opf & 0xff) & 1 ? B_WRITE : B_READ) |
	    (B->bi_opf & 0x800 ? 0 : B_ASYNC) |
	    (B->bi_flags & 1 ? B_PHYS : B_PAGEIO) |
	    (B->bi_status != 0 ? B_ERROR : 0);
	b_bcount = B->bi_iter.bi_size;
	b_addr = 0;
	b_lblkno = B->bi_iter.bi_sector;
	b_blkno = B->bi_iter.bi_sector;
	b_resid = 0;
	b_bufsize = B->bi_iter.bi_size;
	b_iodone = (caddr_t)B->bi_end_io;
	b_error = __blk_errno[B->bi_status];
	b_edev = B->bi_bdev == NULL ? 0 : B->bi_bdev->bd_dev;
};

/*
 * bufinfo_t from a struct request: the io provider's view of a request
 * issued to a disk and completed by it. The direction and B_ASYNC come
 * from the request's flags as a bio's do; a request's pages are not one
 * buffer (B_PAGEIO); b_error is 0 (the completion status is the
 * tracepoint's, not the request's).
 */
translator bufinfo_t < struct request *R > {
	b_flags = ((R->cmd_flags & 0xff) & 1 ? B_WRITE : B_READ) |
	    (R->cmd_flags & 0x800 ? 0 : B_ASYNC) | B_PAGEIO;
	b_bcount = R->__data_len;
	b_addr = 0;
	b_lblkno = R->__sector;
	b_blkno = R->__sector;
	b_resid = 0;
	b_bufsize = R->__data_len;
	b_iodone = (caddr_t)R->end_io;
	b_error = 0;
	b_edev = R->part == NULL ? 0 : R->part->bd_dev;
};

translator devinfo_t < struct block_device *D > {
	dev_major = D == NULL ? 0 : D->bd_dev >> 20;
	dev_minor = D == NULL ? 0 : D->bd_dev & 0xfffff;
	dev_instance = 0;
	dev_name = D == NULL || D->bd_disk->part0->bd_device.parent == NULL ||
	    D->bd_disk->part0->bd_device.parent->driver == NULL ? "<none>" :
	    stringof(D->bd_disk->part0->bd_device.parent->driver->name);
	dev_statname = D == NULL ? "<none>" : stringof(D->bd_device.kobj.name);
	dev_pathname = "<unknown>";
};

translator devinfo_t < struct bio *B > {
	dev_major = xlate<devinfo_t>(B->bi_bdev).dev_major;
	dev_minor = xlate<devinfo_t>(B->bi_bdev).dev_minor;
	dev_instance = xlate<devinfo_t>(B->bi_bdev).dev_instance;
	dev_name = xlate<devinfo_t>(B->bi_bdev).dev_name;
	dev_statname = xlate<devinfo_t>(B->bi_bdev).dev_statname;
	dev_pathname = xlate<devinfo_t>(B->bi_bdev).dev_pathname;
};

translator devinfo_t < struct request *R > {
	dev_major = xlate<devinfo_t>(R->part).dev_major;
	dev_minor = xlate<devinfo_t>(R->part).dev_minor;
	dev_instance = xlate<devinfo_t>(R->part).dev_instance;
	dev_name = xlate<devinfo_t>(R->part).dev_name;
	dev_statname = xlate<devinfo_t>(R->part).dev_statname;
	dev_pathname = xlate<devinfo_t>(R->part).dev_pathname;
};
