# expect: reflective-access
# iterating over a variable, not a literal: unknown
names = ["real", "imag"]
for name in names:
    print(getattr(1, name))
