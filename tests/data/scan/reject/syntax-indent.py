# expect: syntax-error
if True:
print(1)
