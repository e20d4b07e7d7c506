dtrace: failed to compile script err.D_PRINTF_ARG_PROTO.missing.d: [D_PRINTF_ARG_PROTO] line 4: printf( ) prototype mismatch: conversion #2 (%d) is missing a corresponding value argument
