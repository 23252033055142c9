# expect: denied-attribute
import dataclasses
D = dataclasses.make_dataclass('D', ['x', '__class__'])
