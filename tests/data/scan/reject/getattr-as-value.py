# expect: reflective-access
import functools
g = functools.partial(hasattr, 1)
print(g('real'))
