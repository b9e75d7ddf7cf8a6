"""Shared test setup: Qt runs offscreen, and every test starts from the engine's default state."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
