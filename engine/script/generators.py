"""``ScriptGenerator``: what calling a script ``def`` that yields returns.

The body runs in the interpreter, in a greenlet of its own: ``next()`` switches into it, a
``yield`` switches back with the value. Each resumption pushes the generator's frame on the
interpreter's stack (so a pause inside the body has ``depth > 0`` and the caller's frames below
it), counts as a call towards ``Limits.max_recursion``, and its statements count and pause as any
other: a generator that never ends is ended by the statement limit, and the debugger steps into
it. When the stepping driver is resumed after a pause inside a generator, it switches back into
that generator's greenlet (``Interpreter._resume_in``).
"""

from __future__ import annotations

import greenlet

from .errors import ScriptError, limit

_getcurrent = greenlet.getcurrent


class GeneratorGreenlet(greenlet.greenlet):
    """The greenlet a generator body runs in; ``gs_pausing``: the resumer could pause."""

    gs_pausing = False


class ScriptGenerator:
    """A generator of the script: iteration, ``send``, ``throw`` and ``close`` as Python's.

    Only the script holds this handle; the running body holds its ``_GeneratorBody``. So when the
    script drops a suspended generator, it is closed at once, as Python's are: ``x =
    next(gen())`` inside ``with torch.no_grad():`` leaves the grad mode as it was."""

    __slots__ = ("_body", "__weakref__")

    def __init__(self, interp, fn, act) -> None:
        self._body = _GeneratorBody(interp, fn, act)

    def __iter__(self):
        return self

    def __next__(self):
        return self._body._resume("send", None)

    def send(self, value):
        return self._body._resume("send", value)

    def throw(self, value, *rest):
        if isinstance(value, type) and issubclass(value, BaseException):
            value = value(*rest[:1])
        if not isinstance(value, BaseException):
            raise TypeError("exceptions must be classes or instances deriving from "
                            "BaseException, not " + type(value).__name__)
        return self._body._resume("throw", value)

    def close(self):
        self._body.close()

    def __repr__(self) -> str:
        return f"<generator object {self._body._fn._name}>"

    def __copy__(self):
        raise TypeError("cannot pickle 'generator' object")

    def __deepcopy__(self, memo):
        raise TypeError("cannot pickle 'generator' object")

    def __del__(self):
        body = self._body
        if body._state == "suspended":
            try:
                body.close(pausing=False)  # never pauses the script from a collection
            except Exception:
                pass
            except greenlet.error:
                pass  # another thread: the greenlet dies with its thread


class _GeneratorBody:
    """The running state of a ScriptGenerator: its frame, greenlet and loop counters."""

    __slots__ = ("_interp", "_fn", "_act", "_g", "_state", "_loop")

    def __init__(self, interp, fn, act) -> None:
        self._interp = interp
        self._fn = fn
        self._act = act
        act.generator = self
        self._g = None
        self._state = "new"  # new, suspended, running, done
        self._loop = ()

    def close(self, pausing=True):
        if self._state == "suspended":
            self._resume("close", None, pausing)
        self._state = "done"
        self._g = None

    # -- running the body --------------------------------------------------------------------------
    def _resume(self, mode, value, pausing=True):
        state = self._state
        if state == "running":
            raise ValueError("generator already executing")
        if state == "done":
            if mode == "throw":
                raise value
            if mode == "close":
                return None
            raise StopIteration
        if state == "new" and mode != "send":
            self._state = "done"
            if mode == "throw":
                raise value
            return None
        if state == "new" and value is not None:
            raise TypeError("can't send non-None value to a just-started generator")
        interp = self._interp
        if interp._depth >= interp.limits.max_recursion:
            raise limit(f"too many nested calls: more than {interp.limits.max_recursion} (is "
                        "there a recursion without an end?)", interp._current_stmt())
        g = self._g
        if g is None:
            g = self._g = GeneratorGreenlet(self._run)
        current = _getcurrent()
        g.parent = current
        g.gs_pausing = pausing and interp._can_pause(current)
        stack = interp._stack
        height = len(stack)
        depth = interp._depth
        caller_loop = interp._loop_state
        interp._push(self._act)
        interp._depth = depth + 1
        interp._loop_state = self._loop
        self._state = "running"
        try:
            kind, payload = g.switch(mode, value)
        except BaseException:
            self._state = "done"
            self._g = None
            raise
        finally:
            if self._state == "running":
                self._state = "suspended"
            self._loop = interp._loop_state
            interp._loop_state = caller_loop
            del stack[height:]
            interp._depth = depth
        if kind == "yield":
            if mode == "close":
                raise RuntimeError("generator ignored GeneratorExit")
            return payload
        self._state = "done"
        self._g = None
        if kind == "return":
            raise StopIteration if payload is None else StopIteration(payload)
        if kind == "closed":
            return None
        if kind == "exit":
            raise greenlet.GreenletExit
        cause = payload.__cause__ if isinstance(payload, ScriptError) else None
        if isinstance(cause, Exception) and payload.kind == "runtime":
            # as ScriptFunction.__call__: the caller (engine or C code too) sees the script's own
            # exception; the interpreter turns it back into this error when it reaches the script
            cause._gs_script_error = payload
            raise cause from None
        raise payload

    def _run(self, mode, value):
        from .statements import RETURN

        interp = self._interp
        act = self._act
        try:
            if interp._exec_body(self._fn._body, act) is RETURN:
                return "return", act.retval
            return "return", None
        except GeneratorExit:
            return "closed", None
        except greenlet.GreenletExit as e:
            return "exit", e
        except ScriptError as e:
            cause = e.__cause__
            if e.kind == "runtime" and isinstance(cause, StopIteration):
                err = RuntimeError("generator raised StopIteration")
                out = interp._runtime(err, act.stmt)
                return "error", out
            return "error", e
        except BaseException as e:
            return "error", e

    def _yield(self, value):
        """The ``yield`` of the body: back to whoever resumed us; the value sent is the result."""
        self._state = "suspended"
        mode, sent = self._g.parent.switch(("yield", value))
        self._state = "running"
        if mode == "throw":
            raise sent
        if mode == "close":
            raise GeneratorExit
        return sent
