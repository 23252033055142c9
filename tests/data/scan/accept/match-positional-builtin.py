def kind(v):
    match v:
        case int(n) if n > 0:
            return 'positive int %d' % n
        case str(s):
            return 'str ' + s
        case [x, y]:
            return 'pair'
        case _:
            return 'other'
print(kind(3), kind('a'), kind([1, 2]), kind(None))
