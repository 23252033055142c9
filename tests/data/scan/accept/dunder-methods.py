class Vec:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __add__(self, o):
        return Vec(self.x + o.x, self.y + o.y)
    def __eq__(self, o):
        return (self.x, self.y) == (o.x, o.y)
    def __hash__(self):
        return hash((self.x, self.y))
    def __repr__(self):
        return f'Vec({self.x}, {self.y})'
    def __len__(self):
        return 2
    def __iter__(self):
        yield self.x
        yield self.y
v = Vec(1, 2) + Vec(3, 4)
print(v, len(v), list(v), v == Vec(4, 6))
