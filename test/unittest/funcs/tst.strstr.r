[eyfooeyfoo] [fooeyfooeyfoo] [fooeyfooeyfoo]
[] 1 1

