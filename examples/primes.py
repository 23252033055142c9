# A pure-math job: allowed by the pure-math profile.
import math


def primes(n):
    sieve = [True] * (n + 1)
    sieve[0:2] = [False, False]
    for i in range(2, math.isqrt(n) + 1):
        if sieve[i]:
            sieve[i * i :: i] = [False] * len(sieve[i * i :: i])
    return [i for i, p in enumerate(sieve) if p]


ps = primes(100)
print(f"{len(ps)} primes below 100, the last is {ps[-1]}")
