# expect: denied-attribute
import typing
FR = type(typing.get_args(typing.List['int'])[0])
r = FR(str(4))
r._evaluate({}, {}, frozenset())
