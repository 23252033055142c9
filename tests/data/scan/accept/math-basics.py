import math
print(math.sqrt(16), math.pi > 3, math.factorial(10))
