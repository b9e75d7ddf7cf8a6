# expect: forbidden
# evaluates annotation text with a module's globals
from typing import get_type_hints
