# expect: forbidden
import typing
T = typing.TypeVar('T')
x = T.__init__.__globals__
