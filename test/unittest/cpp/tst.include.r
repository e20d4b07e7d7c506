hello from cpp.h 42

-- @@stderr --
. cpp.h
. inc/other.h
Multiple include guards may be useful for:
cpp.h
inc/other.h
