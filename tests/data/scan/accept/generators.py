def countdown(n):
    while n > 0:
        yield n
        n -= 1
print(list(countdown(5)))
g = countdown(3)
print(next(g), next(g))
