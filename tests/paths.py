"""Where the suite finds the repository's own files, whichever folder pytest was started from."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
