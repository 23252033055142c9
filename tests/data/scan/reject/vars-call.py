# expect: denied-builtin
print(vars())
