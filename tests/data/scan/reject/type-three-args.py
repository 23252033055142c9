# expect: dynamic-type
X = type('X', (object,), {'a': 1})
