# expect: denied-attribute
x = 1
print(f'{x.__class__.__bases__}')
