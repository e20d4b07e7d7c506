fbt:9p:v9fs_file_open:entry file

