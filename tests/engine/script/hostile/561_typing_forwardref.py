# expect: forbidden
import typing
r = typing.ForwardRef("__import__('os')")
