def scale(input, vars=2):
    return [v * vars for v in input]
print(scale([1, 2, 3]))
