# expect: reflective-access
parts = ['{x', '}']
print(str.format_map(''.join(parts[::-1][::-1]), {'x': 1}))
