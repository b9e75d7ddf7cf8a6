"""``Interpreter``: runs a script to the end (``run``) or one statement at a time (``steps``).

The evaluator is a plain recursive tree walker (``statements.py``, ``expressions.py``,
``access.py``). Stepping does not change it: ``steps()`` runs it in a child greenlet, and before
every statement (at any call depth) and after every node of a ``backward()`` the walker switches
back to the generator with a ``Pause``, which the generator yields. ``stop()`` sets a flag that the
next statement, iterator step or backward step turns into ``ScriptError(kind="stopped")``.
"""

from __future__ import annotations

import sys

import greenlet

from ..autograd.grad_mode import state as _grad_state
from .access import AccessMixin
from .errors import ScriptError, limit
from .expressions import EXPRESSION_HANDLERS, ExpressionsMixin
from .limits import Limits
from .memory import MemoryMeter
from .numpy_subset import numpy_module
from .objects import Builtin
from .pause import Pause
from .scopes import Activation
from .specials import function_specials, method_specials, text_methods
from .statements import RETURN, STATEMENT_HANDLERS, StatementsMixin
from .validate import parse

# The interpreter recurses once per script call and per nested expression; Python's default of
# 1000 frames is too few for max_recursion nested calls (3.11 keeps these frames off the C stack).
_RECURSION_LIMIT = 20000

_EXCEPTIONS = (
    Exception, ArithmeticError, AssertionError, AttributeError, IndexError, KeyError, LookupError,
    NameError, NotImplementedError, OverflowError, RuntimeError, StopIteration, TypeError,
    ValueError, ZeroDivisionError,
)


class Interpreter(StatementsMixin, ExpressionsMixin, AccessMixin):
    """A PyTorch-style script, ready to run safely on the engine.

    Parameters
    ----------
    source : str
        The script's text.
    limits : Limits, optional
        Resource limits (``Limits()`` by default).
    filename : str
        Shown in syntax errors.
    on_print : callable, optional
        Called with each piece of text the script prints (also collected in ``output``).

    Notes
    -----
    ``steps()`` suspends the script in a greenlet, and greenlets belong to one thread: resume the
    generator from the thread that started it. ``stop()`` may be called from any thread.
    """

    _ev = EXPRESSION_HANDLERS
    _ex = STATEMENT_HANDLERS

    def __init__(self, source: str, *, limits: Limits | None = None, filename: str = "<script>",
                 on_print=None) -> None:
        self.source = source
        self.filename = filename
        self.limits = limits or Limits()
        self.on_print = on_print
        self.output: list[str] = []
        self.globals: dict = {}
        self._max_elements = self.limits.max_tensor_elements
        self._specials = function_specials()
        self._method_specials = method_specials()
        self._text_methods = text_methods(self)
        self._attr_rules: dict = {}
        self._module_types: dict = {}
        self._context_types: dict = {}
        self._script_classes: set = set()
        self._super_builtin = Builtin("super", _no_super)
        self._child = None
        self._stepping = False
        self._stop_requested = False
        self._reset()
        if sys.getrecursionlimit() < _RECURSION_LIMIT:
            sys.setrecursionlimit(_RECURSION_LIMIT)

    # -- public API --------------------------------------------------------------------------------
    def run(self) -> dict:
        """Run the script to the end; returns its namespace. Raises ScriptError."""
        self._stepping = False
        return self._main()

    def steps(self):
        """Run the script as a generator of ``Pause``; its return value is the namespace."""
        child = greenlet.greenlet(self._main)
        self._child = child
        self._stepping = True
        try:
            value = self._switch(child)
            while not child.dead:
                yield value
                value = self._switch(child)
            return value
        finally:
            if not child.dead:
                try:
                    child.throw(greenlet.GreenletExit)
                except greenlet.error:
                    pass  # abandoned from another thread: its frames die with the greenlet
            self._child = None
            self._stepping = False

    def stop(self) -> None:
        """Ask the running script to stop (thread-safe): the next statement or backward step
        raises ``ScriptError(kind="stopped")``."""
        self._stop_requested = True
        self._check_at = -1

    # -- running -----------------------------------------------------------------------------------
    @staticmethod
    def _switch(child):
        try:
            return child.switch()
        except greenlet.error as e:
            raise ScriptError("runtime", f"the script cannot be resumed here: {e}") from None

    def _reset(self) -> None:
        self.output = []
        self._output_chars = 0
        self._count = 0
        self._depth = 0
        self._stack: list[Activation] = []
        self._handling: list = []
        self._loops: list = []  # [loop line, iteration] of every running loop, outermost first
        self._stop_requested = False
        self._check_at = -1 if self._stepping else self.limits.max_statements
        self._memory = MemoryMeter(self.limits.max_total_bytes)

    def _main(self) -> dict:
        self._reset()
        saved = (_grad_state.enabled, _grad_state.anomaly)
        try:
            tree = parse(self.source, self.filename, self.limits)
            from ..creation import initial_seed

            self.globals = {}
            self._numpy = numpy_module(self.limits, initial_seed())
            self._builtins = self._make_builtins()
            module = Activation("<module>", self.globals)
            self._push(module)
            self._exec_body(tree.body, module)
            return self.globals
        except ScriptError:
            raise
        except (RecursionError, MemoryError) as e:
            raise self._runtime(e, self._current_stmt()) from e
        except KeyboardInterrupt:
            raise ScriptError("stopped", "the script was interrupted") from None
        except Exception as e:  # an error outside any statement (should not happen)
            raise self._runtime(e, self._current_stmt()) from e
        finally:
            _grad_state.enabled, _grad_state.anomaly = saved
            self._stack = []
            self._depth = 0

    def _push(self, act: Activation) -> None:
        self._stack.append(act)

    def _pop(self) -> None:
        self._stack.pop()

    def _current_stmt(self):
        return self._stack[-1].stmt if self._stack else None

    def _invoke(self, fn, args, kwargs):
        """Call a script function (from the script or from engine code)."""
        if self._depth >= self.limits.max_recursion:
            raise limit(f"too many nested calls: more than {self.limits.max_recursion} (is there "
                        "a recursion without an end?)", self._current_stmt())
        loc = fn._signature.bind(fn._name, args, kwargs)
        act = Activation(fn._name, loc, fn._closure, function=fn,
                         self_arg=args[0] if args else None)
        self._stack.append(act)
        self._depth += 1
        try:
            if fn._expr is not None:
                return self._eval(fn._expr, act)
            if self._exec_body(fn._body, act) is RETURN:
                return act.retval
            return None
        finally:
            self._stack.pop()
            self._depth -= 1

    # -- hooks ---------------------------------------------------------------------------------------
    def _statement_hook(self, stmt, act) -> None:
        if self._stop_requested:
            raise ScriptError("stopped", "the script was stopped", stmt.lineno, stmt.col_offset)
        if self._count > self.limits.max_statements:
            raise limit(f"too many statements executed: more than {self.limits.max_statements} "
                        "(an endless loop?)", stmt)
        if self._stepping:
            self._pause("statement", stmt, act)

    def _tick(self) -> None:
        """One step of an iterator or comprehension: counts as a statement, honours stop()."""
        self._count += 1
        if self._count > self._check_at:
            if self._stop_requested:
                stmt = self._current_stmt()
                raise ScriptError("stopped", "the script was stopped").at(stmt)
            if self._count > self.limits.max_statements:
                raise limit(f"too many statements executed: more than "
                            f"{self.limits.max_statements} (an endless loop?)",
                            self._current_stmt())

    def _pause(self, kind, stmt, act, step=None) -> None:
        child = self._child
        if child is None or greenlet.getcurrent() is not child:
            return  # a script function called from outside the run: nobody to pause for
        stack = self._stack
        if len(stack) == 1:
            frames = (stmt.gs_frame,)
        else:
            frames = tuple([a.stmt.gs_frame for a in stack[:-1]] + [stmt.gs_frame])
        loops = tuple(map(tuple, self._loops)) if self._loops else ()
        pause = Pause(kind, stmt, len(stack) - 1, frames, act.locals, self.globals, loops, step)
        child.parent.switch(pause)
        if self._stop_requested:
            raise ScriptError("stopped", "the script was stopped", stmt.lineno, stmt.col_offset)

    def _drive_backward(self, steps, node) -> None:
        """Exhaust a backward generator, pausing after each node when stepping."""
        act = self._stack[-1]
        stmt = act.stmt
        try:
            while True:
                try:
                    step = next(steps)
                except StopIteration:
                    break
                except ScriptError:
                    raise
                except Exception as e:
                    raise self._runtime(e, node) from e
                if self._stop_requested:
                    raise ScriptError("stopped", "the script was stopped").at(node)
                if self._stepping:
                    self._pause("backward_step", stmt, act, step)
        finally:
            steps.close()  # restores grad mode if we leave in the middle

    # -- errors --------------------------------------------------------------------------------------
    def _runtime(self, e, node) -> ScriptError:
        """The ScriptError for exception ``e`` raised while evaluating ``node``."""
        if isinstance(e, ScriptError):
            return e.at(node)
        if isinstance(e, RecursionError):
            err = ScriptError("limit", "the script recursed too deeply")
        elif isinstance(e, MemoryError):
            err = ScriptError("limit", "the script ran out of memory")
        else:
            err = ScriptError("runtime", f"{type(e).__name__}: {e}")
        err.at(node)
        err.__cause__ = e
        return err

    # -- builtins ----------------------------------------------------------------------------------
    def _make_builtins(self) -> dict:
        names = {
            "range": range, "len": len, "float": float, "int": int, "bool": bool, "str": str,
            "abs": abs, "min": min, "max": max, "sum": sum, "round": round,
            "enumerate": enumerate, "zip": zip, "list": list, "tuple": tuple, "dict": dict,
            "set": set, "sorted": sorted, "reversed": reversed, "isinstance": isinstance,
            "any": any, "all": all, "map": map, "filter": filter, "pow": pow, "divmod": divmod,
            "iter": iter, "next": next, "repr": repr, "staticmethod": staticmethod,
            "classmethod": classmethod, "property": property, "print": Builtin("print", self._print),
            "super": self._super_builtin, "__name__": "__main__",
        }
        names.update((e.__name__, e) for e in _EXCEPTIONS)
        return names

    def _print(self, *args, sep=" ", end="\n", file=None, flush=False):
        if file is not None:
            raise TypeError("print(file=...) is not available in gradstep scripts")
        if sep is None:
            sep = " "
        if end is None:
            end = "\n"
        if not isinstance(sep, str) or not isinstance(end, str):
            raise TypeError("sep and end must be None or a string")
        text = sep.join(self._to_text(str, a) for a in args) + end
        self._output_chars += len(text)
        if self._output_chars > self.limits.max_output:
            raise limit(f"too much printed output: more than {self.limits.max_output} characters")
        self.output.append(text)
        if self.on_print is not None:
            self.on_print(text)


def _no_super(*args, **kwargs):
    raise RuntimeError("super(): no arguments")


def run(source: str, *, limits: Limits | None = None) -> dict:
    """Run a script on the engine to the end and return its namespace.

    Raises
    ------
    ScriptError
        For every failure: syntax, forbidden, limit, runtime (with the engine's exception as
        ``__cause__``) or stopped.
    """
    return Interpreter(source, limits=limits).run()
