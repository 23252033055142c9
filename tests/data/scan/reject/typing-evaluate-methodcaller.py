# expect: denied-attribute
import operator
import typing
ref = typing.get_args(typing.Optional[str(1)])[0]
print(operator.methodcaller('_evaluate', None, None, frozenset())(ref))
