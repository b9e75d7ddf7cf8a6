"""``Interpreter``: runs a script to the end (``run``) or one statement at a time (``steps``).

The evaluator is a plain recursive tree walker (``statements.py``, ``expressions.py``,
``access.py``). Stepping does not change it: ``steps()`` runs it in a child greenlet, and before
every statement (at any call depth) and after every node of a ``backward()`` the walker switches
back to the generator with a ``Pause``, which the generator yields. ``stop()`` sets a flag that the
next statement, iterator step or backward step turns into ``ScriptError(kind="stopped")``.

The stepping overhead is kept to the greenlet round trip: a ``Pause`` stores only what does not
change (the statement, the frame, the loop counters' tuple) and derives the rest when read; the
frames know their call depth and outer call-stack entries from the moment they are pushed; and
when the script defines no function, lambda or class (so nothing of it can run inside a backward
pass), a ``backward()`` hands its generator to ``steps()``, which runs the nodes and yields their
pauses without a switch per node.
"""

from __future__ import annotations

import ast
import sys
import weakref

import greenlet

from .. import budget as _budget
from .. import tensor_format as _tensor_format
from ..autograd.grad_mode import state as _grad_state
from .access import AccessMixin
from .errors import ScriptError, forbidden, limit
from .expressions import EXPRESSION_HANDLERS, ExpressionsMixin
from .generators import GeneratorGreenlet, ScriptGenerator
from .guards import check_expanded_size
from .limits import Limits, limit_note
from .measure import exception_text
from .memory import MemoryMeter
from .numpy_subset import numpy_module
from .objects import Builtin
from .pause import Frame, Pause
from .reflection import script_getattr, script_hasattr, script_setattr
from .scopes import Activation
from .screening import SEQUENCE_MEMORY_LOOK
from .specials import (
    function_specials,
    method_specials,
    script_builtins,
    script_dir,
    text_methods,
)
from .statements import RETURN, STATEMENT_HANDLERS, StatementsMixin
from .validate import parse

# The walker uses about 7 Python frames per script call (more with nested expressions); Python's
# default of 1000 frames is too few for Limits.max_recursion = 100. 8000 stays well below the depth
# at which recursion through C code (sorted(key=f), Module.__call__) overflows an 8 MiB thread
# stack (about 17000 frames, measured); past it Python raises RecursionError -> kind "limit".
_RECURSION_LIMIT = 8000

_MEMORY_CHECK_EVERY = 1024  # statements between two looks at the process's memory

_PRINT_OPTIONS = ("PRECISION", "THRESHOLD", "EDGEITEMS", "LINEWIDTH", "SCI_MODE")

_getcurrent = greenlet.getcurrent

_EXCEPTIONS = (
    Exception, ArithmeticError, AssertionError, AttributeError, IndexError, KeyError, LookupError,
    NameError, NotImplementedError, OverflowError, RuntimeError, StopIteration, TypeError,
    ValueError, ZeroDivisionError,
    # the warning classes (warnings.warn(..., FutureWarning), warnings.simplefilter(...))
    Warning, UserWarning, DeprecationWarning, FutureWarning, RuntimeWarning,
)


if sys.getrecursionlimit() < _RECURSION_LIMIT:
    sys.setrecursionlimit(_RECURSION_LIMIT)


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
        # tensors with fewer elements need no look in _check_tensor (not too large, not tracked)
        self._small_tensor = min(16384, self._max_elements + 1)
        # shorter str, list and tuple values need no look in _screen (no size limit or memory look)
        self._small_sequence = min(SEQUENCE_MEMORY_LOOK, self.limits.max_string + 1)
        self._specials = function_specials()
        self._script_builtins = script_builtins(self)  # pow, sorted...: checked wherever called
        self._method_specials = method_specials()
        self._text_methods = text_methods(self)
        self._attr_rules: dict = {}
        self._methods: dict = {}  # {class: {name: function or None}} (AccessMixin._method_for)
        self._screen_rules: dict = {}  # {class: rule} (ScreeningMixin._screen)
        self._callable_types: set = set()  # non-denied classes of callables (_call_plain)
        self._constructible: dict = {}  # {class: builds an nn.Module} for classes one may call
        self._module_types: dict = {}
        self._context_types: dict = {}
        # weak: a class statement in a loop makes a new class each time
        self._script_classes = weakref.WeakSet()
        # {script class: the single-underscore names its body defined} (underscore.script_owned)
        self._class_own_names = weakref.WeakKeyDictionary()
        # {id(object): (weakref, {name: value})}: the single-underscore names the script set on
        # objects of its classes with engine bases (underscore.remember_written)
        self._own_attrs: dict = {}
        self._super_builtin = Builtin("super", _no_super)
        self._child = None
        self._driver = None
        self._stepping = False
        self._stop_requested = False
        self._backward_by_driver = False
        self._builtins = None
        self._reset()

    # -- public API --------------------------------------------------------------------------------
    def run(self) -> dict:
        """Run the script to the end; returns its namespace. Raises ScriptError."""
        self._stepping = False
        return self._main()

    def steps(self):
        """Run the script as a generator of ``Pause``; its return value is the namespace."""
        child = greenlet.greenlet(self._main)
        self._child = child
        self._resume_in = child  # the greenlet that paused last (the script's or a generator's)
        self._driver = child.parent
        self._stepping = True
        self._outside_budget = _budget.guard  # what the rest of the process has while paused
        try:
            try:
                switch = child.switch
                value = switch()
                while not child.dead:
                    if value.__class__ is _Backward:
                        value = yield from self._backward_steps(value, child)
                        continue
                    yield from self._paused(value)
                    value = self._resume_in.switch()
            except greenlet.error as e:
                raise ScriptError("runtime", f"the script cannot be resumed here: {e}") from e
            return value
        finally:
            if not child.dead:
                try:
                    paused = self._resume_in
                    if paused is not child and not paused.dead:
                        paused.throw(greenlet.GreenletExit)  # a generator: unwinds into child
                    if not child.dead:
                        child.throw(greenlet.GreenletExit)
                except greenlet.error:
                    pass  # abandoned from another thread: its frames die with the greenlet
            self._child = None
            self._stepping = False

    def _paused(self, pause):
        """Hand ``pause`` to the driver. While the script waits there, the run's allocation budget
        is taken off: the rest of the process (the window, other sessions' dry runs) must not
        be held to a paused script's limits."""
        run_budget = _budget.install(self._outside_budget)
        try:
            yield pause
        finally:
            _budget.install(run_budget)

    def _backward_steps(self, handoff, child):
        """The pauses of a backward pass that the script handed to ``steps()``: its nodes run
        here, in the driver's greenlet, with no switch per node. Returns the script's next value
        (its next pause, or its namespace) once the pass ended or failed in the script."""
        steps = handoff.steps
        stmt = handoff.stmt
        act = handoff.act
        try:
            for step in steps:
                if self._stop_requested:
                    raise ScriptError("stopped", "the script was stopped").at(handoff.node)
                yield from self._paused(
                    Pause("backward_step", stmt, act, self.globals, self._loop_state, step))
                if self._stop_requested:
                    raise ScriptError("stopped", "the script was stopped", stmt.lineno,
                                      stmt.col_offset)
        except GeneratorExit:
            raise  # steps() abandoned: its finally ends the script
        except BaseException as e:  # the engine's error or a stop: raised where backward was called
            steps.close()
            return child.throw(e)
        finally:
            steps.close()  # restores grad mode if we leave in the middle
        return child.switch()

    def evaluate_condition(self, condition, names) -> bool:
        """A breakpoint condition (text or ``ast.Expression``), evaluated by this interpreter
        against a paused frame's ``names`` with the run's limits and screening: a condition that
        builds a 4 GB string, raises a huge power or nests too deeply ends in ``ScriptError``
        (kind ``limit``, ``forbidden``, ``syntax`` or ``runtime``) as the script would. Runs under
        ``no_grad``; a script function it calls runs without pausing. Call it while the run is
        paused (from the thread driving ``steps()``) or before or after a run."""
        from ..autograd.grad_mode import no_grad

        text = condition if isinstance(condition, str) else ast.unparse(condition)
        tree = parse(text.strip(), "<condition>", self.limits)  # syntax, forbidden, nesting
        if len(tree.body) != 1 or tree.body[0].__class__ is not ast.Expr:
            raise ScriptError("syntax", "a condition is one expression")
        expr = tree.body[0].value
        if getattr(self, "_builtins", None) is None:  # not run yet
            from ..creation import initial_seed

            self._numpy = numpy_module(self.limits, initial_seed(), self._memory)
            self._builtins = self._make_builtins()
        act = Activation("<condition>", dict(names))
        stepping = self.__dict__.pop("_exec_body", None)  # no pause inside a condition
        try:
            with no_grad():
                return self._truth(self._eval(expr, act), expr)
        except ScriptError as e:
            raise e.at(expr)
        except Exception as e:  # RecursionError, MemoryError -> limit; the rest -> runtime
            raise self._runtime(e, expr) from e
        finally:
            if stepping is not None:
                self._exec_body = stepping

    def stop(self) -> None:
        """Ask the running script to stop (thread-safe): the next statement or backward step
        raises ``ScriptError(kind="stopped")``."""
        self._stop_requested = True
        self._check_at = -1

    # -- running -----------------------------------------------------------------------------------
    def _reset(self) -> None:
        self.output = []
        self._module_flags: dict = {}  # {(module, name): bool} the run set (safety.py)
        self._output_chars = 0
        self._count = 0
        self._depth = 0
        self._stack: list[Activation] = []
        self._handling: list = []
        # ((loop line, iteration), ...) of every running loop, outermost first; kept up to date
        # only while stepping (nobody reads it otherwise)
        self._loop_state = ()
        self._max_statements = self.limits.max_statements
        self._memory = MemoryMeter(self.limits.max_total_bytes)
        self._next_memory_check = _MEMORY_CHECK_EVERY
        # _count above _check_at sends a statement through _statement_checks: the statement limit,
        # the memory look, or a stop() (which sets _check_at to -1)
        if self._stop_requested:
            self._check_at = -1
        else:
            self._check_at = min(self.limits.max_statements, self._next_memory_check)

    def _main(self) -> dict:
        self._reset()
        restore_switches = _global_switches()  # the engine's global state, as the run starts
        outer_budget = _budget.install(_budget.Budget(  # the limits on every engine allocation
            self._max_elements, room=self._memory.check_room, max_list=self.limits.max_list,
            max_string=self.limits.max_string))
        try:
            tree = parse(self.source, self.filename, self.limits)
            # a script without def, lambda or class has no code that backward() could call
            self._backward_by_driver = not tree.gs_defines
            from ..creation import initial_seed

            self.globals = {}
            self._numpy = numpy_module(self.limits, initial_seed(), self._memory)
            self._stdlib = {}  # the standard modules' proxies of this run (stdlib/)
            self._run_seed = initial_seed()  # random's seed, read as the run starts
            self._builtins = self._make_builtins()
            module = Activation("<module>", self.globals)
            self._push(module)
            if self._stepping:
                self._exec_body = self._exec_body_stepping  # pauses before every statement
            else:
                self.__dict__.pop("_exec_body", None)
            self._exec_body(tree.body, module)
            return self.globals
        except ScriptError:
            raise
        except (RecursionError, MemoryError) as e:
            raise self._runtime(e, self._current_stmt()) from e
        except Exception as e:  # an error outside any statement (should not happen)
            raise self._runtime(e, self._current_stmt()) from e
        except greenlet.GreenletExit:
            raise  # steps() abandoned: unwind quietly
        except BaseException as e:  # KeyboardInterrupt, SystemExit from somewhere below
            raise ScriptError("stopped", f"the script was interrupted ({type(e).__name__})",
                              *_position(self._current_stmt())) from e
        finally:
            restore_switches()  # a script's global switches end with it (_global_switches)
            _budget.install(outer_budget)
            self.__dict__.pop("_exec_body", None)
            self._stack = []
            self._depth = 0
            self._loop_state = ()
            self._stop_requested = False  # a stop ends one run; the next run starts afresh

    def _push(self, act: Activation) -> None:
        stack = self._stack
        if stack:
            top = stack[-1]
            act.frames = top.frames + (_frame_of(top),)
            act.depth = len(stack)
        stack.append(act)

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
        if fn._generator:  # its body runs when the generator is resumed (generators.py)
            return ScriptGenerator(self, fn, act)
        self._push(act)
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

    def _can_pause(self, current) -> bool:
        """Code running in greenlet ``current`` may switch to the stepping driver: the script's
        own greenlet, or a generator's resumed from one that may."""
        child = self._child
        return child is not None and (current is child or (
            current.__class__ is GeneratorGreenlet and current.gs_pausing))

    # -- hooks -------------------------------------------------------------------------------------
    def _statement_hook(self, stmt, act) -> None:
        """The checks due before a statement once ``_count`` passed ``_check_at``."""
        if self._stop_requested:
            raise ScriptError("stopped", "the script was stopped", stmt.lineno, stmt.col_offset)
        count = self._count
        if count > self._max_statements or count >= self._next_memory_check:
            self._periodic_checks(stmt)

    def _periodic_checks(self, node) -> None:
        """The statement limit, and every few thousand statements the process memory."""
        count = self._count
        if count > self._max_statements:
            raise limit(f"too many statements executed: more than {self.limits.max_statements} "
                        "(an endless loop? loop steps and the items sum(), any() and the like "
                        f"take count too; {limit_note('max_statements', self.limits)})", node)
        if count >= self._next_memory_check:
            self._next_memory_check = count + _MEMORY_CHECK_EVERY
            self._memory.check_process(node)
        if not self._stop_requested:
            self._check_at = min(self.limits.max_statements, self._next_memory_check)

    def _tick(self) -> None:
        """One step of an iterator or comprehension: counts as a statement, honours stop()."""
        self._count += 1
        if self._count > self._check_at:
            if self._stop_requested:
                stmt = self._current_stmt()
                raise ScriptError("stopped", "the script was stopped").at(stmt)
            self._periodic_checks(self._current_stmt())

    def _take_steps(self, n: int, node, what: str) -> None:
        """``n`` steps at once (``sum(range(n))`` adds in C): refused whole if more than the
        statement budget has left, so that the error says what asked for them."""
        left = self._max_statements - self._count
        if n > left:
            raise limit(f"{what} of {n} items would take more steps than the script may run: "
                        f"each item counts as a statement, and {left} are left "
                        f"({limit_note('max_statements', self.limits)})", node)
        self._count += n
        if self._count > self._check_at:
            self._periodic_checks(node)

    def _drive_backward(self, steps, node) -> None:
        """Exhaust a backward generator, pausing after each node when stepping."""
        act = self._stack[-1]
        stmt = act.stmt
        pausing = stmt is not None and self._can_pause(_getcurrent())
        try:
            try:
                if pausing and self._backward_by_driver:
                    # no statement of the script can run inside this backward: steps() runs its
                    # nodes and yields their pauses itself, then resumes us (or raises here)
                    self._driver.switch(_Backward(steps, stmt, act, node))
                    return
                for step in steps:
                    if self._stop_requested:
                        raise ScriptError("stopped", "the script was stopped").at(node)
                    if pausing:
                        self._resume_in = _getcurrent()
                        self._driver.switch(Pause("backward_step", stmt, act, self.globals,
                                                  self._loop_state, step))
                        if self._stop_requested:
                            raise ScriptError("stopped", "the script was stopped", stmt.lineno,
                                              stmt.col_offset)
            except ScriptError:
                raise
            except Exception as e:  # raised by the engine's backward (or a hook in it)
                raise self._runtime(e, node) from e
        finally:
            steps.close()  # restores grad mode if we leave in the middle

    # -- errors ------------------------------------------------------------------------------------
    def _runtime(self, e, node) -> ScriptError:
        """The ScriptError for exception ``e`` raised while evaluating ``node``."""
        if isinstance(e, ScriptError):
            return e.at(node)
        original = getattr(e, "_gs_script_error", None)
        if original is not None:  # raised in a script function that engine code had called
            return original.at(node)
        if isinstance(e, RecursionError):
            err = ScriptError("limit", "the script recursed too deeply")
        elif isinstance(e, MemoryError):  # the engine's allocation budget says what and why
            err = ScriptError("limit", str(e) if isinstance(e, _budget.BudgetExceeded)
                              else "the script ran out of memory")
        else:
            err = ScriptError("runtime", f"{type(e).__name__}: {exception_text(e, self.limits)}")
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
            "issubclass": issubclass,
            "any": any, "all": all, "map": map, "filter": filter, "pow": pow, "divmod": divmod,
            "iter": iter, "next": next, "repr": repr, "staticmethod": staticmethod,
            "classmethod": classmethod, "property": property, "super": self._super_builtin,
            "print": Builtin("print", self._print), "type": Builtin("type", _type_of),
            "dir": Builtin("dir", lambda *a: script_dir(self, *a)), "id": Builtin("id", id),
            "hash": Builtin("hash", self._hash), "callable": callable,
            "getattr": Builtin("getattr", lambda *a: script_getattr(self, *a)),
            "hasattr": Builtin("hasattr", lambda *a: script_hasattr(self, *a)),
            "setattr": Builtin("setattr", lambda *a: script_setattr(self, *a)),
            # ``class A(object):`` of older tutorials; the class's attributes stay refused
            # (access.AccessMixin._attr_class), and so its dunder walks
            "object": object, "__name__": "__main__",
        }
        names.update((e.__name__, e) for e in _EXCEPTIONS)
        names.update(self._script_builtins)
        return names

    def _hash(self, value):
        check_expanded_size(value, self.limits)  # a tuple of shared lists hashes them all
        return hash(value)

    def _print(self, *args, sep=" ", end="\n", file=None, flush=False):
        if file is not None:
            raise TypeError("print(file=...) is not available in gradstep scripts")
        if sep is None:
            sep = " "
        if end is None:
            end = "\n"
        if not isinstance(sep, str) or not isinstance(end, str):
            raise TypeError("sep and end must be None or a string")
        pieces = []
        total = self._output_chars + len(end)
        for a in args:  # print(*[s] * 10**5): counted before it is joined
            piece = self._to_text(str, a)
            total += len(piece) + len(sep)
            if total > self.limits.max_output:
                raise limit(f"too much printed output: more than {self.limits.max_output} "
                            "characters")
            pieces.append(piece)
        text = sep.join(pieces) + end
        self._output_chars += len(text)
        if self._output_chars > self.limits.max_output:
            raise limit(f"too much printed output: more than {self.limits.max_output} characters")
        self.output.append(text)
        if self.on_print is not None:
            self.on_print(text)


class _Backward:
    """A backward pass the script hands to ``steps()`` to run node by node (see _drive_backward)."""

    __slots__ = ("steps", "stmt", "act", "node")

    def __init__(self, steps, stmt, act, node) -> None:
        self.steps = steps
        self.stmt = stmt
        self.act = act
        self.node = node


def _global_switches():
    """The engine's global switches a script may change, read now; returns the function that
    puts them back (when a run ends, however it ends): grad mode (and inference mode), anomaly
    mode, the print options, the default dtype and the default device, the thread counts, the
    deterministic-algorithms flag and the warnings PyTorch gives once a process."""
    from .. import dtypes as _dtypes
    from .. import warn_once as _warn_once
    from ..device import _DEFAULT_STACK, _default
    from ..threads import DETERMINISTIC as _deterministic
    from ..threads import SETTINGS as _threads

    grad = (_grad_state.enabled, _grad_state.anomaly, _grad_state.inference)
    printing = {k: getattr(_tensor_format, k) for k in _PRINT_OPTIONS}
    dtypes = (_dtypes.DEFAULT_FLOAT, _dtypes.DEFAULT_INT)
    device = (_default[0], len(_DEFAULT_STACK))
    settings = (dict(_threads), dict(_deterministic))
    warned = set(_warn_once.WARNED)  # a run is a process: its warn-once warnings are its own

    def restore() -> None:
        _warn_once.WARNED.clear()
        _warn_once.WARNED.update(warned)
        _threads.update(settings[0])
        _deterministic.update(settings[1])
        _grad_state.enabled, _grad_state.anomaly, _grad_state.inference = grad
        for k, v in printing.items():
            setattr(_tensor_format, k, v)
        _dtypes.DEFAULT_FLOAT, _dtypes.DEFAULT_INT = dtypes
        _default[0] = device[0]
        del _DEFAULT_STACK[device[1]:]

    return restore


def _position(stmt):
    return (stmt.lineno, stmt.col_offset) if stmt is not None else (None, None)


def _frame_of(act) -> Frame:
    if act.stmt is not None:
        return act.stmt.gs_frame
    node = act.function._node if act.function is not None else None  # a lambda: no statements
    return Frame(act.name, getattr(node, "lineno", 0))


def _type_of(obj, *more):
    """``type(x)``, the one-argument form only (three arguments would build classes unchecked)."""
    if more:
        raise forbidden("type() with 3 arguments is not available: define classes with 'class'")
    return type(obj)


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
