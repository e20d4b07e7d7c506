quiet, not indented
