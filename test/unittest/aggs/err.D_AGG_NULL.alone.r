dtrace: failed to compile script err.D_AGG_NULL.alone.d: [D_AGG_NULL] line 5: expression has null effect: @a
