dtrace: failed to compile script err.D_XLATE_NONE.none.d: [D_XLATE_NONE] line 4: cannot translate from "string" to "psinfo_t *"
