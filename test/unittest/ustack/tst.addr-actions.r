  pidfuncs`dtt_greet                                  pidfuncs`dtt_greet                                  pidfuncs`dtt_greet                                  pidfuncs                                          |

