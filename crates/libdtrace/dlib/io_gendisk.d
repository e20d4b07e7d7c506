/*
 * The io provider's translators from the block layer's types of the
 * kernels before Linux 5.11, where a bio names its disk (bi_disk, a
 * gendisk) and a partition number (bi_partno), and a partition is a
 * struct hd_struct. The types are in io.d; the translators for the
 * kernels since 5.12 are in io_bdev.d. (5.11, which no distribution
 * ships, has neither form: the block_device of 5.12 but the bio of
 * 5.10.)
 *
 * A partition's device numbers and name are its hd_struct's device
 * (__dev: "vda1"; the whole disk's is its part0, "vda"), a bio's
 * partition is its disk's partition table's entry bi_partno (entry 0
 * being part0), and the driver is that of the disk's parent device.
 */

#pragma D depends_on library io.d
#pragma D depends_on member bio.bi_disk
#pragma D depends_on member hd_struct.partno

translator bufinfo_t < struct bio *B > {
	b_flags = ((B->bi_opf & 0xff) & 1 ? B_WRITE : B_READ) |
	    (B->bi_opf & 0x800 ? 0 : B_ASYNC) | B_PAGEIO |
	    (B->bi_status != 0 ? B_ERROR : 0);
	b_bcount = B->bi_iter.bi_size;
	b_addr = 0;
	b_lblkno = B->bi_iter.bi_sector;
	b_blkno = B->bi_iter.bi_sector;
	b_resid = 0;
	b_bufsize = B->bi_iter.bi_size;
	b_iodone = (caddr_t)B->bi_end_io;
	b_error = __blk_errno[B->bi_status];
	b_edev = B->bi_disk == NULL ? 0 :
	    B->bi_disk->major << 20 | B->bi_disk->first_minor + B->bi_partno;
};

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
	b_edev = R->part == NULL ? 0 : R->part->__dev.devt;
};

translator devinfo_t < struct block_device *D > {
	dev_major = D == NULL ? 0 : D->bd_dev >> 20;
	dev_minor = D == NULL ? 0 : D->bd_dev & 0xfffff;
	dev_instance = 0;
	dev_name = D == NULL || D->bd_disk->part0.__dev.parent == NULL ||
	    D->bd_disk->part0.__dev.parent->driver == NULL ? "<none>" :
	    stringof(D->bd_disk->part0.__dev.parent->driver->name);
	dev_statname = D == NULL ? "<none>" :
	    stringof(D->bd_part->__dev.kobj.name);
	dev_pathname = "<unknown>";
};

translator devinfo_t < struct bio *B > {
	dev_major = B->bi_disk == NULL ? 0 : B->bi_disk->major;
	dev_minor = B->bi_disk == NULL ? 0 :
	    B->bi_disk->first_minor + B->bi_partno;
	dev_instance = 0;
	dev_name = B->bi_disk == NULL ||
	    B->bi_disk->part0.__dev.parent == NULL ||
	    B->bi_disk->part0.__dev.parent->driver == NULL ? "<none>" :
	    stringof(B->bi_disk->part0.__dev.parent->driver->name);
	dev_statname = B->bi_disk == NULL ? "<none>" :
	    stringof(B->bi_disk->part_tbl->part[B->bi_partno]->__dev.kobj.name);
	dev_pathname = "<unknown>";
};

translator devinfo_t < struct request *R > {
	dev_major = R->part == NULL ? 0 : R->part->__dev.devt >> 20;
	dev_minor = R->part == NULL ? 0 : R->part->__dev.devt & 0xfffff;
	dev_instance = 0;
	dev_name = R->rq_disk == NULL ||
	    R->rq_disk->part0.__dev.parent == NULL ||
	    R->rq_disk->part0.__dev.parent->driver == NULL ? "<none>" :
	    stringof(R->rq_disk->part0.__dev.parent->driver->name);
	dev_statname = R->part == NULL ? "<none>" :
	    stringof(R->part->__dev.kobj.name);
	dev_pathname = "<unknown>";
};
