sq = [i * i for i in range(10)]
ev = {i for i in sq if i % 2 == 0}
d = {i: str(i) for i in range(3)}
g = sum(x for x in range(100))
print(sq, sorted(ev), d, g)
