class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y
p = Point(1, 2)
print(getattr(1, "real"), getattr(p, "x"), getattr(p, "z", None))
print([getattr(p, "y")])
