from dataclasses import dataclass
@dataclass
class Point:
    x: int
    y: int
class Pair:
    __match_args__ = ('left', 'right')
    def __init__(self, left, right):
        self.left, self.right = left, right
for v in (Point(1, 2), Pair('a', 'b')):
    match v:
        case Point(x, y):
            print('point', x, y)
        case Pair(a, b):
            print('pair', a, b)
