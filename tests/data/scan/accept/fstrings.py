name = 'world'
x = 3.14159
items = [1, 2, 3]
print(f'hello {name!r}, pi={x:.2f}, n={len(items)}, {items[0]:>4}|')
print(f'{{literal}} {x=:.1f}')
