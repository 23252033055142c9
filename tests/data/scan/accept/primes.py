def primes(n):
    s = [True] * (n + 1)
    out = []
    for i in range(2, n + 1):
        if s[i]:
            out.append(i)
            for j in range(i * i, n + 1, i):
                s[j] = False
    return out
print(primes(50))
