# expect: forbidden
exec('import os')
