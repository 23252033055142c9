# expect: module-write
import math
del math.pi
