s = '  Hello, World  '
print(s.strip().lower().split(', '), s.count('l'), '-'.join(['a', 'b']))
print('abc'.upper().center(9, '*'))
