# expect: denied-builtin
import typing
x = typing.List["__import__('os').getcwd()"]
