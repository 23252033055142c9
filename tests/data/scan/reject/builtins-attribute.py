# expect: denied-builtin
__builtins__.eval('1')
