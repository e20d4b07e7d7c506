dtrace: failed to compile script err.D_KEY_TYPE.key.d: [D_KEY_TYPE] line 4: key of type struct task_struct is not supported
