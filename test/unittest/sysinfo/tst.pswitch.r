pswitch 1 1

