import math
# every binding of fn is a literal string: each is judged like a constant
for fn in ("sin", "cos", "tan"):
    print(fn, round(getattr(math, fn)(0.5), 4))
parts = [getattr(3 + 4j, part) for part in ["real", "imag"]]
method = "upper"
print(parts, getattr("abc", method)())
