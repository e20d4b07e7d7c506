dtrace: failed to compile script err.D_XLATE_NONE.bufinfo.d: [D_XLATE_NONE] line 4: cannot translate from "struct task_struct *" to "bufinfo_t"
