BEGIN { printf("%.4000000d", 1); }
