dtrace: failed to compile script err.D_PRAGMA_OPTSET.ring.d: [D_PRAGMA_OPTSET] line 1: failed to set option 'bufpolicy' to 'ring': the ring buffer policy is not supported yet
