# expect: denied-builtin
license()
