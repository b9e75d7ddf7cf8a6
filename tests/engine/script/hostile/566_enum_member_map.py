# expect: forbidden
import enum
class Color(enum.Enum):
    RED = 1
x = Color._member_map_
