# expect: reflective-access
# `from m import *` may bind any name: nothing is resolved
from math import *
name = "real"
print(getattr(1, name))
