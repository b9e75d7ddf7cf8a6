# expect: forbidden
import dataclasses
@dataclasses.dataclass
class C:
    x: int = 0
g = C.__init__.__globals__
