"""gradstep's window (PySide6). Nothing here does math: it renders what engine.session publishes."""
