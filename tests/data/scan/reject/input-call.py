# expect: denied-builtin
x = input()
