"""What the console held at each moment of a run, so a travel in time shows exactly that moment.

A run is deterministic (same script, same seed): its k-th message (a print's text, a warning,
an error) is the same every time the run passes there. ``ConsoleHistory`` keeps the run's
messages in order and, at every pause the window was shown, how many had come. Travelling to a
pause cuts the console back to that count; going forward again writes over the same slots, so
no line doubles. A point the window was never shown (``continue`` records the statements it
runs past) is placed by the console's line count there and the timeline's warning markers.
No Qt here: ``app.console_feed`` feeds it and shows what it gives.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class Message:
    """One thing the run told the console: a print's text, a warning, an error (with its
    explanation and fixes: several rows), "Script finished."."""

    entries: tuple  # app.console.ConsoleEntry rows
    before: int  # console lines printed before it
    after: int  # ... and after it
    open: bool = False  # after it, the last console line is unfinished (print(..., end=""))
    warning: bool = False
    mark: Any = None  # the editor's error mark it sets (app.editor.EditorError), or None
    tail: str = ""  # the console's last line after it

    @property
    def text_lines(self) -> bool:
        """It printed whole lines of its own (not only the end of an open one)."""
        return self.after > self.before


@dataclass(frozen=True)
class _Rest:
    """Where the messages stood at one pause."""

    count: int
    lines: int
    open: bool
    tail: str = ""


def count_lines(lines: int, open_: bool, tail: str, text: str) -> tuple[int, bool, str]:
    """The console's line count, open state and last line after printing ``text``, as
    ``Session._on_print`` keeps its list of lines (an unfinished last line counts)."""
    if not text:
        return lines, open_, tail
    parts = text.split("\n")
    if open_:
        parts[0] = tail + parts[0]
    lines += len(parts) - (1 if open_ else 0)
    open_ = parts[-1] != ""
    if not open_:
        lines -= 1  # the empty text after the last newline is no line
        parts.pop()
    return lines, open_, parts[-1] if parts else tail


def rest_key(point) -> tuple | None:
    """A timeline point as the moment it is: its pause (``raw_index``), the run's end after
    it counting later. Stable while points are inserted around it (their indices move)."""
    if point is None:
        return None
    return (point.raw_index, 1 if point.kind in ("finished", "error") else 0)


class ConsoleHistory:
    """The messages of the current run and the count shown (``shown()``)."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.messages: list[Message] = []
        self.count = 0  # messages of the moment shown
        self.lines = 0
        self.open = False
        self.tail = ""
        self._rests: dict[tuple, _Rest] = {}

    def shown(self) -> list[Message]:
        return self.messages[: self.count]

    def add(self, entries, *, text: str | None = None, warning: bool = False,
            mark=None) -> Message:
        """The run told the console something now (``text``: what a print printed)."""
        lines, open_, tail = count_lines(self.lines, self.open, self.tail, text) \
            if text is not None else (self.lines, self.open, self.tail)
        msg = Message(tuple(entries), self.lines, lines, open_, warning, mark, tail)
        known = self.messages[self.count] if self.count < len(self.messages) else None
        if known is not None and known != msg:
            # The run went another way than the one remembered: that future is not this run's.
            del self.messages[self.count:]
            self._rests = {k: r for k, r in self._rests.items() if r.count <= self.count}
            known = None
        if known is None:
            self.messages.append(msg)
        self.count += 1
        self.lines, self.open, self.tail = lines, open_, tail
        return msg

    def rest(self, key: tuple | None) -> None:
        """The run came to rest at the moment ``key`` (``rest_key``) with what it printed."""
        if key is not None:
            self._rests[key] = _Rest(self.count, self.lines, self.open, self.tail)

    def travel(self, key: tuple, lines: int, last: str | None,
               warnings_between: Callable[[tuple | None, tuple], int]) -> bool:
        """Show the moment ``key``, where the console had ``lines`` lines, the last one
        ``last`` (None: not known). False when the messages known do not reach it (then
        ``rebuild`` from the session's lines; ``retext`` when only their text differs).
        ``warnings_between(lo, hi)``: how many points in (lo, hi] the timeline marks as
        having warned."""
        rest = self._rests.get(key)
        if rest is None:
            rest = self._place(key, lines, last, warnings_between)
        if rest.lines != lines:
            return False
        self.count, self.lines = rest.count, rest.lines
        self.open, self.tail = rest.open, rest.tail
        return True

    def _place(self, key: tuple, lines: int, last: str | None, warnings_between) -> _Rest:
        """A moment never shown: after the last pause shown before it, the prints that filled
        the console up to ``lines`` lines and ``last``, and as many warnings at that line
        count as points warned."""
        lo = max((k for k in self._rests if k < key), default=None)
        rest = self._rests[lo] if lo is not None else _Rest(0, 0, False)
        budget = warnings_between(lo, key)
        for msg in self.messages[rest.count:]:
            if msg.text_lines:
                if msg.after > lines:
                    break
            elif msg.before >= lines:
                # Nothing tells whether it came before the moment but the line it leaves
                # (a print that continues the line) or the markers (a warning).
                ends_line = msg.entries[0].kind == "output" and msg.after > 0 \
                    and last is not None and last.startswith(msg.tail)
                if not (msg.warning and budget > 0 or ends_line):
                    break
            budget -= msg.warning
            rest = _Rest(rest.count + 1, msg.after, msg.open, msg.tail)
        return rest

    def printed(self) -> str:
        """The text the shown prints make, as the session's console lines joined."""
        text = "".join(m.entries[0].text for m in self.shown()
                       if m.entries[0].kind == "output")
        return text if self.open else text[:-1]  # the last line's newline: no line after

    def retext(self, texts) -> bool:
        """The session printed other text where these messages stand (an object's address,
        printed again by a re-execution): take its ``texts`` (the console's lines), each
        print keeping its place and line. False when a print shares a line with another
        (then ``rebuild``)."""
        shown, open_ = [], False
        for msg in self.shown():
            if msg.entries[0].kind == "output" and msg.text_lines:
                if open_ or msg.open:
                    return False
                text = "\n".join(texts[msg.before:msg.after]) + "\n"
                msg = replace(msg, entries=(replace(msg.entries[0], text=text),),
                              tail=texts[msg.after - 1])
            open_ = msg.open
            shown.append(msg)
        self.messages[: self.count] = shown
        del self.messages[self.count:]  # what follows was printed with the old text
        self._rests = {k: r for k, r in self._rests.items() if r.count <= self.count}
        self.tail = shown[-1].tail if shown else ""
        return True

    def rebuild(self, texts, entry_of: Callable[[str], Any]) -> None:
        """Only the session's console lines are known for the moment shown (``entry_of``
        makes a line's row): they become the run's messages so far."""
        self.clear()
        for text in texts:
            self.add((entry_of(text + "\n"),), text=text + "\n")
