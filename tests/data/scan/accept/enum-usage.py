from enum import Enum, auto
class Color(Enum):
    RED = auto()
    GREEN = auto()
print(Color.RED, Color.GREEN.value, [c.name for c in Color])
