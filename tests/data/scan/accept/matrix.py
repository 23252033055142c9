def matmul(a, b):
    return [[sum(x * y for x, y in zip(r, c)) for c in zip(*b)] for r in a]
print(matmul([[1, 2], [3, 4]], [[5, 6], [7, 8]]))
