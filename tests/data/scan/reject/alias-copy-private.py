# expect: module-internals
import random
r = random
print(r._inst)
