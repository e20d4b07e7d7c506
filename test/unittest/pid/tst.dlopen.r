jn 2
jn returned

