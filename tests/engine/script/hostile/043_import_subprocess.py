# expect: forbidden
import subprocess
