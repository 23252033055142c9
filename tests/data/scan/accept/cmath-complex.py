import cmath
z = complex(3, 4)
print(abs(z), cmath.phase(1j) > 1.5, z.conjugate())
