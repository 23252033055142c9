import copy, operator
a = [[1], [2]]
b = copy.deepcopy(a)
b[0].append(9)
print(a, b)
print(sorted([(1, 'b'), (0, 'a')], key=operator.itemgetter(1)))
print(operator.attrgetter('real')(3))
