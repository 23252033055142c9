data = [1, 5, 9, 12]
if (n := len(data)) > 3:
    print('long', n)
print(sorted(data, key=lambda v: -v))
print(list(map(lambda s: s * 2, 'ab')))
