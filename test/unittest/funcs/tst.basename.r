'/a/b/c.d' |c.d|/a/b|
'/' |/|/|
'' |.|.|
'a' |a|.|
'a/' |a|.|
'/a' |a|/|
'a/b//' |b|a|
'//a//b' |b|//a|
'///' |/|/|
'usr/lib' |lib|usr|
c.d abcd ell

