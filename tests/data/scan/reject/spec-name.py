# expect: denied-builtin
print(__spec__)
