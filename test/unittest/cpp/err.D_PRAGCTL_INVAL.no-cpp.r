dtrace: failed to compile script err.D_PRAGCTL_INVAL.no-cpp.d: [D_PRAGCTL_INVAL] line 9: invalid control directive: #if
