# expect: dynamic-type
T = type
X = T('X', (), {})
