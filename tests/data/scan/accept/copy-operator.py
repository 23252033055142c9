import copy
a = [[1], [2]]
b = copy.deepcopy(a)
b[0].append(9)
print(a, b)
print(sorted([(1, 'b'), (0, 'a')], key=lambda t: t[1]))
print(copy.copy({'k': [1]}))
