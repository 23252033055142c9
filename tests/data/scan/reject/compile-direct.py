# expect: denied-builtin
c = compile('1', 'x', 'eval')
