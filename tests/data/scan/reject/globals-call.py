# expect: denied-builtin
g = globals()
print(g['__builtins__'])
