# expect: denied-builtin
fs = (len, eval)
print(fs[1]('1'))
