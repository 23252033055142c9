# expect: module-write
import math
math.tau += 1
