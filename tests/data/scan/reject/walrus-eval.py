# expect: denied-builtin
x = (f := eval)("1")
