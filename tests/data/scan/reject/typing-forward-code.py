# expect: denied-attribute
import typing
ref = typing.get_args(typing.List[str(3)])[0]
print(ref.__forward_code__)
