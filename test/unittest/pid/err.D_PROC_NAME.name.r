dtrace: failed to compile script err.D_PROC_NAME.name.d: [D_PROC_NAME] line 6: 'start' is an invalid probe name
