
  getpid                                                            5
