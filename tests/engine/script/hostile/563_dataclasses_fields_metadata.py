# expect: forbidden
import dataclasses
@dataclasses.dataclass
class C:
    x: int = 0
m = dataclasses.fields(C)[0].metadata
