dtrace: failed to compile script err.D_NOTSUP.ddi_pathname.d: [D_NOTSUP] line 3: ddi_pathname( ) is not supported on Linux: it names a Solaris device-tree node (dev_info_t), which Linux does not have
