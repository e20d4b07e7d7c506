dtrace: failed to compile script err.D_PRINTF_ARG_PROTO.printa-key.d: [D_PRINTF_ARG_PROTO] line 5: printa( ) prototype mismatch: conversion #1 (%d) is missing a corresponding value argument
