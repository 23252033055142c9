# expect: denied-attribute
getattr(1, '__cl' + 'ass__')
