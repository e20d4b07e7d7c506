rw_wrfails contend 1

