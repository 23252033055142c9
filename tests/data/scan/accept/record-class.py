from collections import namedtuple


class Point:
    __slots__ = ("x", "y", "tags")

    def __init__(self, x, y=0, tags=None):
        self.x = x
        self.y = y
        self.tags = list(tags or [])
        self.tags.append("p")

    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)

    def __repr__(self):
        return f"Point(x={self.x}, y={self.y}, tags={self.tags})"


Pair = namedtuple("Pair", ["left", "right"], defaults=[None])
p = Point(1, 2)
print(p, p == Point(1, 2), Pair(1), Pair(1, 2)._replace(right=3), Pair._fields)
