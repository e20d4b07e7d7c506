/* Nothing but a comment: D_EMPTY, at the line after the last. */
