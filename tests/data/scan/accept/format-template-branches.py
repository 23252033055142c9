def label(n):
    if n == 1:
        t = '{} item'
    else:
        t = '{} items'
    return t.format(n)
print(label(1), label(2))
