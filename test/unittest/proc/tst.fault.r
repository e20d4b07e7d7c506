fault FLTBOUNDS signal 11 at 0
exit killed

