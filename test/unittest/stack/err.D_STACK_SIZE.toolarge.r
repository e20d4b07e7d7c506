dtrace: failed to compile script err.D_STACK_SIZE.toolarge.d: [D_STACK_SIZE] line 7: stack( ) size 200 exceeds the limit of 127 frames
