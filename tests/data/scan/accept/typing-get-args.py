import typing
def f(x: "list[int]") -> typing.Optional["str"]:
    return None
print(typing.get_args(typing.Dict[str, int]), typing.get_origin(typing.List[int]))
print(f.__annotations__['x'])
