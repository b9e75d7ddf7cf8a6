# expect: forbidden
from dataclasses import make_dataclass
