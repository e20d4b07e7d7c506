...cdef.

