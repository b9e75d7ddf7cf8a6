# expect: forbidden
from typing import Generic, TypeVar
T = TypeVar('T')
class Box(Generic[T]):
    pass
