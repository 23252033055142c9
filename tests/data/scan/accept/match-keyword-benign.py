from dataclasses import dataclass
@dataclass
class Item:
    name: str
    qty: int
match Item('pen', 3):
    case Item(name=n, qty=q) if q > 1:
        print(n, q)
