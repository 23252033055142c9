row = '{:>6}|{:<4}'
for a, b in ((1, 'x'), (22, 'yy')):
    print(row.format(a, b))
print('{name} is {age}'.format_map({'name': 'Ann', 'age': 7}))
print(str.format('{0}-{1}', 'a', 'b'))
print(f'{3.14159:.2f}')
