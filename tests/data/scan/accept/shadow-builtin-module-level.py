input = [3, 1, 2]
print(sorted(input))
format_ = 'x'
print(format(3.14159, '.2f'), format_)
