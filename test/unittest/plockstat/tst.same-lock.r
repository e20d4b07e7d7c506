2 releases of the first mutex taken

