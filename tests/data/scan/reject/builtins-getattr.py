# expect: denied-builtin
getattr(__builtins__, 'open')('/etc/passwd')
