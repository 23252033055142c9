# expect: denied-builtin
e = eval
print(e('2*3'))
