"""``Activation``: one running frame of the script (module body, function call or class body)."""

from __future__ import annotations


class Activation:
    """The state of one frame: its names and where it is.

    ``enclosing`` holds the scopes of the functions it is nested in (innermost first), which is all
    a closure needs; class bodies are left out of it, as in Python.
    """

    __slots__ = ("name", "locals", "enclosing", "stmt", "declared", "function",
                 "self_arg", "retval", "is_class", "depth", "frames", "generator")

    def __init__(self, name, locals, enclosing=(), function=None, self_arg=None, declared=None,
                 is_class=False) -> None:
        self.name = name
        self.locals = locals
        self.enclosing = enclosing
        self.stmt = None  # the statement running now
        self.declared = declared  # {name: "global" | "nonlocal"} or None
        self.function = function
        self.self_arg = self_arg  # first positional argument, for super()
        self.retval = None
        self.is_class = is_class
        # set when the frame is pushed on the interpreter's stack: its call depth and the call-stack
        # entries of the frames below it (which do not change while this one runs)
        self.depth = 0
        self.frames = ()
        self.generator = None  # the ScriptGenerator whose body this frame runs
