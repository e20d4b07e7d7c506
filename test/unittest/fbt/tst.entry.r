fbt:vmlinux:do_sys_openat2:entry /dev/null/impossible

