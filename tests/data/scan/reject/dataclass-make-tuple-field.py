# expect: denied-attribute
from dataclasses import make_dataclass
D = make_dataclass('D', [('x', int), ('__globals__', object)])
