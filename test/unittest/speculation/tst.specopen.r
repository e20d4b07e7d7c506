CPU FUNCTION                                 
  0  => openat                                /nonexistent/speculation/test
  0  <= openat                                        2

