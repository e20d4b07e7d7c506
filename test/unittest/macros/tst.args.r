42 43 hello quoted

