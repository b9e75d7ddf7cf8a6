"""``python -m engine.record [options] SCRIPT.py [ARGS...]``: ``gradstep record`` as a module.

So that ``torchrun --nproc_per_node=2 -m engine.record --iterations 3 train.py`` records rank 0
(``--rank``) of a multi-process run; see ``engine/record/command.py``.
"""

import sys

from .command import main

if __name__ == "__main__":
    sys.exit(main(prog="python -m engine.record"))
