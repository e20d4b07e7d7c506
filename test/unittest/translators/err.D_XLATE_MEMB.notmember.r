dtrace: failed to compile script err.D_XLATE_MEMB.notmember.d: [D_XLATE_MEMB] line 6: translator member b is not a member of struct out
