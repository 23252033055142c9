# expect: denied-builtin
print(credits)
