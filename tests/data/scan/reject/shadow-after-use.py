# expect: denied-builtin
print(open)
open = None
