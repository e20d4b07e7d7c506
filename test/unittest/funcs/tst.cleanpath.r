[/foo/baz] [/foo/bar/baz/] [/]
[/foo/..bar/.x] [/c] []
[/foo/] [/x]

