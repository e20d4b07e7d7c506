  pidfuncs`dtt_greet                                  pidfuncs`dtt_greet                                  pidfuncs                                          

  pidfuncs`dtt_add                                                  3

  pidfuncs                                                          3

