"""Executing statements: one method per ``ast.stmt`` class, dispatched by a dict.

A handler returns None to go on, or one of the signals ``BREAK``, ``CONTINUE``, ``RETURN`` (the
value of a return is left in the frame's ``retval``), which ``_exec_body`` hands up unchanged.
"""

from __future__ import annotations

import ast
import dataclasses

import greenlet

from .dispatch import handler_table
from .errors import ScriptError, forbidden
from .generators import GeneratorGreenlet
from .modules import ENGINE_MODULES, STDLIB_MODULES, engine_module, proxy_for
from .objects import ScriptFunction
from .pause import Pause
from .safety import CLASS_DUNDERS, SCRIPT_CONTEXTS, is_engine_type
from .scopes import Activation

BREAK = "break"
CONTINUE = "continue"
RETURN = "return"

_getcurrent = greenlet.getcurrent
_Name = ast.Name
_Attribute = ast.Attribute
_Constant = ast.Constant


class StatementsMixin:
    """The statement half of the tree walker (mixed into ``Interpreter``)."""

    def _exec_body(self, body, act):
        handlers = self._ex
        for stmt in body:
            act.stmt = stmt
            count = self._count + 1
            self._count = count
            if count > self._check_at:
                self._statement_hook(stmt, act)
            try:
                signal = handlers[stmt.__class__](self, stmt, act)
            except ScriptError as e:
                raise e.at(stmt)
            except Exception as e:
                raise self._runtime(e, stmt) from e
            if signal is not None:
                return signal
        return None

    def _exec_body_stepping(self, body, act):
        """``_exec_body`` of a stepped run: switches to the driver with a Pause before each
        statement (``_main`` puts it in the instance's ``_exec_body``)."""
        handlers = self._ex
        for stmt in body:
            self._start_statement(stmt, act)
            child = self._child
            current = _getcurrent()
            if child is not None and (current is child or (
                    current.__class__ is GeneratorGreenlet and current.gs_pausing)):
                self._resume_in = current  # steps() resumes this greenlet (a generator's too)
                self._driver.switch(Pause("statement", stmt, act, self.globals,
                                          self._loop_state))
                if self._stop_requested:
                    raise ScriptError("stopped", "the script was stopped", stmt.lineno,
                                      stmt.col_offset)
            signal = self._run_statement(handlers[stmt.__class__], stmt, act)
            if signal is not None:
                return signal
        return None

    def _start_statement(self, stmt, act):
        """What starts each statement of a stepped run (``_exec_body`` inlines it): it becomes
        the frame's current one, and counts (the hook's checks once past ``_check_at``)."""
        act.stmt = stmt
        self._count += 1
        if self._count > self._check_at:
            self._statement_hook(stmt, act)

    def _run_statement(self, handler, stmt, act):
        """One statement of a stepped run, its errors placed at it (``_exec_body`` inlines
        this: it runs every statement of a plain run)."""
        try:
            return handler(self, stmt, act)
        except ScriptError as e:
            raise e.at(stmt)
        except Exception as e:
            raise self._runtime(e, stmt) from e

    # -- simple statements -------------------------------------------------------------------------
    def _ex_expr(self, stmt, act):
        value = stmt.value
        self._ev[value.__class__](self, value, act)

    def _ex_assign(self, stmt, act):
        expr = stmt.value
        cls = expr.__class__
        value = expr.value if cls is _Constant else self._ev[cls](self, expr, act)
        name = stmt.gs_name
        if name is not None and act.declared is None:
            act.locals[name] = value  # the common ``x = ...``
            return
        targets = stmt.targets
        if len(targets) == 1:
            target = targets[0]
            if target.__class__ is _Attribute:  # ``obj.name = ...``
                obj = target.value
                if obj.__class__ is _Name:
                    obj = self._ev_name(obj, act)
                else:
                    obj = self._ev[obj.__class__](self, obj, act)
                self._setattr(obj, target.attr, value, target)
                return
        for target in targets:
            self._assign(target, value, act)

    def _ex_annassign(self, stmt, act):
        if act.is_class and stmt.target.__class__ is _Name:
            # a class body keeps its annotations, as Python (what @dataclass reads); text under
            # ``from __future__ import annotations``
            if self.__dict__.get("_future_annotations"):
                annotation = ast.unparse(stmt.annotation)
            else:
                annotation = self._eval(stmt.annotation, act)
            namespace = act.locals
            annotations = namespace.get("__annotations__")
            if annotations is None:
                annotations = namespace["__annotations__"] = {}
            annotations[stmt.target.id] = annotation
        if stmt.value is not None:
            self._assign(stmt.target, self._eval(stmt.value, act), act)

    def _ex_augassign(self, stmt, act):
        target = stmt.target
        op = stmt.gs_op
        if target.__class__ is _Name:
            name = target.id
            current = self._ev_name(target, act)
            expr = stmt.value
            value = self._binop(op, current, self._ev[expr.__class__](self, expr, act), stmt)
            if act.declared is None:
                act.locals[name] = value
            else:
                self._store_name(name, value, act)
        elif target.__class__ is ast.Attribute:
            obj = self._eval(target.value, act)
            current = self._getattr(obj, target.attr, target)
            value = self._binop(op, current, self._eval(stmt.value, act), stmt)
            self._setattr(obj, target.attr, value, target)
        else:
            obj = self._eval(target.value, act)
            key = self._eval(target.slice, act)
            current = self._getitem(obj, key, target)
            value = self._binop(op, current, self._eval(stmt.value, act), stmt)
            self._setitem(obj, key, value, target)

    def _ex_pass(self, stmt, act):
        return None

    def _ex_break(self, stmt, act):
        return BREAK

    def _ex_continue(self, stmt, act):
        return CONTINUE

    def _ex_return(self, stmt, act):
        act.retval = None if stmt.value is None else self._eval(stmt.value, act)
        return RETURN

    def _ex_global(self, stmt, act):
        self._declare(stmt.names, "global", act)

    def _ex_nonlocal(self, stmt, act):
        self._declare(stmt.names, "nonlocal", act)

    @staticmethod
    def _declare(names, how, act):
        if act.declared is None:
            act.declared = {}
        for name in names:
            act.declared[name] = how

    def _ex_assert(self, stmt, act):
        if not self._truth(self._eval(stmt.test, act), stmt.test):
            if stmt.msg is None:
                raise AssertionError()
            raise AssertionError(self._eval(stmt.msg, act))

    def _ex_delete(self, stmt, act):
        for target in stmt.targets:
            self._delete(target, act)

    def _ex_raise(self, stmt, act):
        if stmt.exc is None:
            if not self._handling:
                raise RuntimeError("No active exception to reraise")
            raise self._handling[-1]
        exc = self._eval(stmt.exc, act)
        if isinstance(exc, type) and issubclass(exc, Exception):
            exc = self._call(exc, [], {}, stmt.exc)
        if not isinstance(exc, Exception):
            raise TypeError("exceptions must derive from BaseException")
        raise exc

    # -- control flow ------------------------------------------------------------------------------
    def _ex_if(self, stmt, act):
        if self._truth(self._eval(stmt.test, act), stmt.test):
            return self._exec_body(stmt.body, act)
        if stmt.orelse:
            return self._exec_body(stmt.orelse, act)
        return None

    def _ex_for(self, stmt, act):
        iterable = stmt.iter
        iterable = self._ev[iterable.__class__](self, iterable, act)
        return self._loop(stmt, act, self._iterate(iterable, stmt.iter), stmt.target)

    def _ex_while(self, stmt, act):
        test = stmt.test
        truth = self._truth
        ev = self._eval
        # the test as an iterator: True while it holds (_truth gives a real bool)
        return self._loop(stmt, act, iter(lambda: truth(ev(test, act), test), False), None)

    def _loop(self, stmt, act, items, target):
        """The loop of ``for`` (binding each item to ``target``) and ``while`` (``target`` None)."""
        # the loop counters are only kept while stepping; outer loops' counters stay put while
        # this loop runs, so the tuple of this iteration is theirs plus this loop's
        stepping = self._child is not None
        outer = self._loop_state
        line = stmt.lineno
        k = -1
        if stepping:
            self._loop_state = outer + ((line, -1),)
        name = target.id if target is not None and target.__class__ is _Name else None
        local = act.locals
        body = stmt.body
        try:
            for item in items:
                if stepping:
                    k += 1
                    self._loop_state = outer + ((line, k),)
                if name is not None and act.declared is None:
                    local[name] = item  # the common ``for x in ...``
                elif target is not None:
                    self._assign(target, item, act)
                signal = self._exec_body(body, act)
                if signal is not None:
                    if signal is BREAK:
                        break
                    if signal is CONTINUE:
                        continue
                    return signal
            else:
                self._loop_state = outer
                if stmt.orelse:
                    return self._exec_body(stmt.orelse, act)
        finally:
            self._loop_state = outer
        return None

    def _ex_with(self, stmt, act):
        entered = []
        normal = False  # the script's own managers exit only after a normal end or a runtime error
        try:
            for item in stmt.items:
                manager = self._eval(item.context_expr, act)
                if not self._is_context_manager(type(manager)):
                    raise TypeError(f"'{type(manager).__name__}' object does not support the "
                                    "context manager protocol")
                value = manager.__enter__()
                entered.append(manager)
                if item.optional_vars is not None:
                    self._assign(item.optional_vars, self._screen(value, item), act)
            signal = self._exec_body(stmt.body, act)
            normal = True
            return signal
        except ScriptError as err:
            # the script's own managers see the script's own exception (no traceback) and may
            # swallow it by returning a true value, as in Python; never a stop or a limit
            exc = err.__cause__
            if err.kind == "runtime" and isinstance(exc, Exception):
                while entered:
                    manager = entered.pop()
                    if type(manager) in self._script_classes:
                        if self._truth(manager.__exit__(type(exc), exc, None), stmt):
                            normal = True
                            return None
                    else:
                        manager.__exit__(None, None, None)
            raise
        finally:
            # always leave the grad mode as it was, also when stopped or out of limits
            while entered:
                manager = entered.pop()
                if normal or type(manager) not in self._script_classes:
                    manager.__exit__(None, None, None)

    def _is_context_manager(self, t) -> bool:
        known = self._context_types.get(t)
        if known is None:
            # the engine's (grad modes, anomaly detection) and the script's own classes';
            # Python's would reach files
            known = (is_engine_type(t) or t in self._script_classes
                     or t.__qualname__ in SCRIPT_CONTEXTS.get(t.__module__, ())) and hasattr(
                t, "__enter__") and hasattr(t, "__exit__")
            if len(self._context_types) > 10_000:
                self._context_types.clear()
            self._context_types[t] = known
        return known

    def _ex_try(self, stmt, act):
        try:
            signal = self._try_handlers(stmt, act)
        except GeneratorExit:
            # a generator closed at this yield runs its finally, as Python's
            if stmt.finalbody:
                self._exec_body(stmt.finalbody, act)
            raise
        except ScriptError as err:
            if not stmt.finalbody or err.kind != "runtime":
                raise
            final = self._exec_body(stmt.finalbody, act)
            if final is not None:
                return final  # a return/break in finally drops the exception, as in Python
            raise
        if stmt.finalbody:
            final = self._exec_body(stmt.finalbody, act)
            if final is not None:
                return final
        return signal

    def _try_handlers(self, stmt, act):
        try:
            signal = self._exec_body(stmt.body, act)
        except ScriptError as err:
            # only the script's own runtime errors can be caught; never a stop or a limit
            exc = err.__cause__
            if err.kind != "runtime" or exc is None or not isinstance(exc, Exception):
                raise
            for handler in stmt.handlers:
                if handler.type is not None:
                    wanted = self._eval(handler.type, act)
                    classes = wanted if isinstance(wanted, tuple) else (wanted,)
                    if not all(isinstance(c, type) and issubclass(c, BaseException)
                               for c in classes):
                        raise TypeError("catching classes that do not inherit from "
                                        "BaseException is not allowed") from None
                    if not isinstance(exc, classes):
                        continue
                if handler.name:
                    self._store_name(handler.name, self._screen(exc, handler), act)
                self._handling.append(err)
                try:
                    return self._exec_body(handler.body, act)
                finally:
                    self._handling.pop()
            raise
        if stmt.orelse:
            return self._exec_body(stmt.orelse, act)
        return signal

    # -- definitions -------------------------------------------------------------------------------
    def _ex_functiondef(self, stmt, act):
        decorators = [self._eval(d, act) for d in stmt.decorator_list]
        signature = self._signature(stmt.args, act)
        fn = ScriptFunction(self, stmt.name, signature, stmt.body, None, self._closure_of(act),
                            stmt)
        value = fn
        for decorator, node in zip(reversed(decorators), reversed(stmt.decorator_list)):
            value = self._call(decorator, [value], {}, node)
        self._store_name(stmt.name, value, act)

    def _ex_classdef(self, stmt, act):
        decorators = [self._eval(d, act) for d in stmt.decorator_list]
        bases = tuple(self._eval(b, act) for b in stmt.bases)
        for base, node in zip(bases, stmt.bases):
            if not self._may_derive_from(base):
                raise forbidden(
                    "a script class can derive from nn.Module, optim.Optimizer, "
                    "optim.lr_scheduler.LRScheduler, autograd.Function, utils.data's Dataset, "
                    "IterableDataset and Sampler, enum's "
                    "Enum classes, Python's exceptions or another class of the script, not from "
                    f"{getattr(base, '__name__', type(base).__name__)}", node)
        meta = _metaclass_of(bases)
        # a base's own metaclass (Enum's, Dataset's) prepares the namespace and builds the class
        namespace = {} if meta is type else meta.__prepare__(stmt.name, bases)
        namespace["__module__"] = "__main__"
        namespace["__qualname__"] = stmt.name
        doc = ast.get_docstring(stmt)
        if doc is not None:  # as Python's class statement, which the text check leaves alone
            namespace["__doc__"] = doc
        prepared = set(namespace)  # what the metaclass put there (enum's _generate_next_value_)
        body_act = Activation(stmt.name, namespace, self._closure_of(act), is_class=True)
        self._push(body_act)
        try:
            signal = self._exec_body(stmt.body, body_act)
        finally:
            self._pop()
        if signal is not None:
            raise SyntaxError(f"'{signal}' outside loop")
        for key in namespace:
            if key.startswith("__") and key not in CLASS_DUNDERS and key not in (
                    "__module__", "__qualname__", "__annotations__", "__doc__"):
                raise forbidden(f"defining '{key}' is not available", stmt)
        # the single-underscore names the body defined are the script's (underscore.py)
        own = frozenset(k for k in namespace if k[0] == "_" and k[1:2] != "_"
                        and k not in prepared)
        cls = meta(stmt.name, bases or (object,), namespace)
        self._script_classes.add(cls)
        self._class_own_names[cls] = own
        for value in namespace.values():
            # methods, also under staticmethod/classmethod/property, learn their class (super())
            fn = value
            if isinstance(value, (staticmethod, classmethod)):
                fn = value.__func__
            elif isinstance(value, property):
                fn = value.fget
            if isinstance(fn, ScriptFunction):
                fn._owner = cls
        value = cls
        for decorator, node in zip(reversed(decorators), reversed(stmt.decorator_list)):
            value = self._call(decorator, [value], {}, node)
        if (value is not cls and isinstance(value, type) and dataclasses.is_dataclass(value)
                and value.__module__ == "__main__" and value.__qualname__ == stmt.name):
            self._script_classes.add(value)  # @dataclass(slots=True) builds a new class
        self._store_name(stmt.name, value, act)

    def _may_derive_from(self, base) -> bool:
        """Script classes derive from object, their own classes, the engine's extension points
        (``nn.Module``, ``optim.Optimizer``, ``autograd.Function``, ``utils.data.Dataset``,
        ``IterableDataset``, ``Sampler``), enum's ``Enum`` family and Python's exceptions."""
        if not isinstance(base, type):
            return False
        if base in self._script_classes or base is object or base in _STDLIB_BASES:
            return True
        if issubclass(base, Exception) and base.__module__ == "builtins":
            return True  # class MyError(ValueError): ...
        return is_engine_type(base) and any(
            c.__name__ in _ENGINE_BASES and is_engine_type(c) for c in base.__mro__)

    # -- imports -----------------------------------------------------------------------------------
    def _ex_import(self, stmt, act):
        for alias in stmt.names:
            name = alias.name
            if alias.asname:
                self._store_name(alias.asname, self._module(name, stmt), act)
            else:
                top = name.split(".")[0]
                self._module(name, stmt)  # imports the submodule, as Python does
                self._store_name(top, self._module(top, stmt), act)

    def _ex_importfrom(self, stmt, act):
        module = self._module(stmt.module, stmt)
        if stmt.module == "__future__" and any(a.name == "annotations" for a in stmt.names):
            self._future_annotations = True  # class-body annotations are kept as text
        for alias in stmt.names:
            sub = f"{stmt.module}.{alias.name}"
            if sub in ENGINE_MODULES or sub == "numpy.random":
                value = self._module(sub, stmt)
            else:
                try:
                    value = self._attr_proxy(module, alias.name, stmt)
                except ScriptError as e:
                    if e.kind != "runtime":
                        raise
                    value = self._submodule(sub, stmt, ImportError(
                        f"cannot import name '{alias.name}' from '{stmt.module}'"))
            self._store_name(alias.asname or alias.name, value, act)

    def _submodule(self, name: str, node, err: ImportError):
        """``from torch.distributions import kl``: a submodule its package does not import
        itself (modules.ENGINE_PACKAGES), else ``err``."""
        if engine_module(name) is not None:
            try:
                return self._module(name, node)
            except ScriptError as e:
                if e.kind != "runtime":
                    raise
        raise self._runtime(err, node) from err

    def _module(self, name: str, node):
        if name == "numpy":
            return self._numpy
        if name == "numpy.random":
            return self._numpy._lookup("random")
        if name in _STDLIB:
            from .stdlib import stdlib_module

            return stdlib_module(name, self)
        if engine_module(name) is None:
            raise forbidden(f"import of '{name}' is not available", node)
        return proxy_for(name, node)


_STDLIB = frozenset(STDLIB_MODULES)
_ENGINE_BASES = frozenset({"Module", "Optimizer", "Function", "Dataset", "IterableDataset",
                           "Sampler", "LRScheduler"})  # a warm-up schedule's get_lr()


def _enum_bases() -> tuple:
    from .stdlib.enum_ import BASES

    return BASES


_STDLIB_BASES = frozenset(_enum_bases())


def _metaclass_of(bases) -> type:
    """The metaclass a class with ``bases`` gets (Python's rule): the most derived one."""
    meta = type
    for base in bases:
        m = type(base)
        if issubclass(meta, m):
            continue
        if issubclass(m, meta):
            meta = m
            continue
        raise TypeError("metaclass conflict: the metaclass of a derived class must be a "
                        "(non-strict) subclass of the metaclasses of all its bases")
    return meta


STATEMENT_HANDLERS = handler_table(StatementsMixin, "_ex_")
