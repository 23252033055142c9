# expect: denied-builtin
print(eval('1+1'))
