from fractions import Fraction
from decimal import Decimal, getcontext
getcontext().prec = 10
print(Fraction(1, 3) + Fraction(1, 6))
print(Decimal(1) / Decimal(7))
