# expect: denied-builtin
print(getattr(1, 'real'))
