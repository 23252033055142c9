# expect: denied-builtin
p = copyright
print(p)
