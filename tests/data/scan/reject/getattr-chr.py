# expect: denied-builtin
getattr(1, chr(95) * 2 + 'class' + chr(95) * 2)
