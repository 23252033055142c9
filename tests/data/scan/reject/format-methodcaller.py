# expect: reflective-access
import operator
t = '{0}'.strip()
print(operator.methodcaller('format', 1)(t))
