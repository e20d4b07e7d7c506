 PROVIDER MODULE FUNCTION NAME
 fbt vmlinux vfs_read entry
 fbt vmlinux vfs_read return
