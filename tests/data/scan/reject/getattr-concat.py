# expect: denied-builtin
getattr(1, '__cl' + 'ass__')
