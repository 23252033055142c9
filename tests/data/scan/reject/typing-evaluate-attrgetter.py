# expect: denied-attribute
import operator
import typing
ref = typing.get_args(typing.Dict[str, str(2)])[1]
ev = operator.attrgetter('_evaluate')(ref)
