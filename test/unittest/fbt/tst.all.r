counted

