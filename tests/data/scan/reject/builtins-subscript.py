# expect: denied-builtin
__builtins__['exec']('print(1)')
