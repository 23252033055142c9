# expect: denied-builtin
print(ｅval('1+1'))
