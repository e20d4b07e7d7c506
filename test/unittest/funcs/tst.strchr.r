[yfooeyfoo] [yfoo]
[fooeyfooeyfoo] [foo]
[] [eyfoo]
1 0 0

