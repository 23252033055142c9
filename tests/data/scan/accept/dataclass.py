from dataclasses import dataclass, field

@dataclass
class Point:
    x: int
    y: int = 0
    tags: list = field(default_factory=list)

    def __post_init__(self):
        self.tags.append('p')

p = Point(1, 2)
print(p, p == Point(1, 2))
