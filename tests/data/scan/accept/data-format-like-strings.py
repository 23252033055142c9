doc = 'A template such as {0.__class__} reaches attributes.'
print(doc)
print(len('{x.__init__.__globals__}'))
