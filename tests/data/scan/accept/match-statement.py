def kind(v):
    match v:
        case {'type': 'point', 'x': x}:
            return f'point {x}'
        case [a, b]:
            return f'pair {a} {b}'
        case int(n) if n > 0:
            return 'positive'
        case _:
            return 'other'
print(kind({'type': 'point', 'x': 1}), kind([1, 2]), kind(5), kind('s'))
