import random
random.seed(42)
print([random.randint(1, 6) for _ in range(5)])
r = random.Random(1)
print(r.random() < 1)
