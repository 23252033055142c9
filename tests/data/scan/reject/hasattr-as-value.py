# expect: reflective-access
import functools
print(functools.reduce(hasattr, ["real"], 1))
