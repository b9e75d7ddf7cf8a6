# expect: forbidden
import typing
T = typing.TypeVar('T')
x = T.__module__
