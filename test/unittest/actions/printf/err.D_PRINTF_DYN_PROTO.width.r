dtrace: failed to compile script err.D_PRINTF_DYN_PROTO.width.d: [D_PRINTF_DYN_PROTO] line 4: printf( ) prototype mismatch: conversion #1 (%d) is missing a corresponding "*" argument
