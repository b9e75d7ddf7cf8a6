# expect: forbidden
import enum
class Meta(type(enum.Enum)):
    pass
