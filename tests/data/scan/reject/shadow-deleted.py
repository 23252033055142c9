# expect: denied-builtin
eval = 1
del eval
eval('1')
