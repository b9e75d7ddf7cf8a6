"""Whether a process is still running: tells a crashed session's leftovers from a live one's."""

from __future__ import annotations

import os


def process_running(pid: int | None) -> bool:
    if pid is None:
        return False
    if pid == os.getpid():
        return True
    if os.name != "posix":
        return False  # os.kill(pid, 0) would terminate it on Windows: assume it is gone
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, but belongs to someone else
    except OSError:
        return False
    return True
