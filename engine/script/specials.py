"""Calls the interpreter handles itself: size-checked creation functions, ``backward()`` run step
by step, and the script's builtins whose plain versions could run unbounded in C code.

``function_specials()`` maps ``id(function)`` to ``handler(interp, args, kwargs, node)`` and
``method_specials()`` maps ``id(method function)`` to ``handler(interp, self, args, kwargs, node)``.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from .. import autograd as _autograd
from .. import creation as _creation
from .. import tensor_format as _tensor_format
from ..autograd import functional as _functional
from ..optim import LBFGS
from ..tensor import Tensor
from .errors import ScriptError, limit
from .guards import (
    arange_length,
    check_binop,
    check_elements,
    check_expanded_size,
    check_int_bits,
    check_int_text,
    check_length,
    check_modular_pow,
    check_range_search,
    check_round,
    product,
    safe_format,
    size_from_args,
)
from .objects import Builtin, SafeIterator, ScriptFunction

# -- creation functions ----------------------------------------------------------------------------


def _sized(real, size_of):
    def handler(interp, args, kwargs, node):
        try:
            n = size_of(args, kwargs)
            check_elements(n, interp.limits)
            if n is not None and n >= 16384:  # max_total_bytes, before allocating (4-byte floats)
                interp._memory.check_room(n * 4)
        except ScriptError as e:
            raise e.at(node)
        return interp._call_plain(real, args, kwargs, node)

    return handler


def _full_size(args, kwargs):
    size = kwargs.get("size", args[0] if args else None)
    if isinstance(size, int) and not isinstance(size, bool):
        return size
    return product(size) if isinstance(size, (tuple, list)) else None


def _randint_size(args, kwargs):
    if "size" in kwargs:
        return size_from_args((), kwargs)
    for a in args:
        if isinstance(a, (tuple, list)):
            return product(a)
    return None


def _steps_size(args, kwargs):
    steps = kwargs.get("steps", args[2] if len(args) > 2 else None)
    return steps if isinstance(steps, int) else None


def _eye_size(args, kwargs):
    n = args[0] if args else kwargs.get("n")
    m = args[1] if len(args) > 1 else kwargs.get("m", n)
    return product((n, n if m is None else m))


def _tensor_ctor_size(args, kwargs):
    if args and all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return product(args)
    return None


def _expand_size(self, args, kwargs):
    dims = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    shape = self._data.shape
    resolved = []
    for i, d in enumerate(dims):
        j = i - (len(dims) - len(shape))
        resolved.append(shape[j] if d == -1 and j >= 0 else d)
    return product(resolved)


def _repeat_size(self, args, kwargs):
    dims = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    n = product(dims)
    return None if n is None else n * max(self._data.size, 1)


# -- backward, step by step ------------------------------------------------------------------------


def _backward_arguments(gradient=None, retain_graph=None, create_graph=False, inputs=None):
    return create_graph, inputs, (gradient, retain_graph)


def _tensor_backward(interp, tensor, args, kwargs, node):
    return _stepped_backward(interp, _backward_arguments, tensor.backward_steps, tensor.backward,
                             args, kwargs, node)


def _autograd_backward_arguments(tensors, grad_tensors=None, retain_graph=None,
                                 create_graph=False, inputs=None, grad_variables=None):
    grads = grad_tensors if grad_tensors is not None else grad_variables
    return create_graph, inputs, (tensors, grads, retain_graph)


def _autograd_backward(interp, args, kwargs, node):
    return _stepped_backward(interp, _autograd_backward_arguments, _functional.backward_steps,
                             _autograd.backward, args, kwargs, node)


def _stepped_backward(interp, parse, steps_of, plain, args, kwargs, node):
    """``backward()`` node by node: ``parse`` reads the call's arguments as the real function does
    (into create_graph, inputs and the arguments of ``steps_of``); a call that builds a graph or
    names its inputs runs ``plain`` in one go."""
    try:
        create_graph, inputs, step_args = parse(*args, **kwargs)
    except TypeError as e:
        err = TypeError(str(e).replace(parse.__name__, "backward"))
        raise interp._runtime(err, node) from err
    if create_graph or inputs is not None:
        return interp._call_plain(plain, args, kwargs, node)
    interp._drive_backward(interp._native(steps_of, step_args, None, node), node)
    return None


# -- print options (global engine state: checked here, restored after the run) ---------------------


def _set_printoptions(interp, args, kwargs, node):
    from .. import tensor_format

    names = ("precision", "threshold", "edgeitems", "linewidth")
    caps = {"precision": 50, "threshold": interp.limits.max_list, "edgeitems": 1000,
            "linewidth": 10_000}
    values = dict(zip(names, args))
    values.update((k, v) for k, v in kwargs.items() if k in caps)
    for name, value in values.items():
        if isinstance(value, (int, float)) and value > caps[name]:
            raise limit(f"set_printoptions({name}={value}) is above gradstep's limit of "
                        f"{caps[name]}", node)
    if kwargs.get("profile") == "full" and tensor_format.THRESHOLD != math.inf:
        kwargs = {**kwargs, "profile": None, "threshold": caps["threshold"]}
    return interp._call_plain(tensor_format.set_printoptions, args, kwargs, node)


# -- builtins --------------------------------------------------------------------------------------


def script_callable(interp, func, node):
    """``func`` as C code may call it with the script's values (``map(pow, ...)``,
    ``sorted(key=str)``): through ``interp._call``, so a builtin gets the checks of a direct call.
    The script's own functions already run in the interpreter when called from C."""
    if type(func) is ScriptFunction or not callable(func):
        return func

    def call(*args, **kwargs):
        return interp._call(func, list(args), kwargs, node)

    return call


def _wrap_iter(real):
    # lazy: a huge range is fine here, each item is counted as it is taken
    takes_function = real is map or real is filter

    def handler(interp, args, kwargs, node):
        if args and (takes_function or (real is iter and len(args) == 2)):
            args = [script_callable(interp, args[0], node), *args[1:]]
        return SafeIterator(interp._native(real, args, kwargs, node), interp._tick, interp._screen)

    return handler


def _collection(real):
    def handler(interp, args, kwargs, node):
        if args:
            args = [interp._materialize(args[0], node), *args[1:]]
            if real is sorted or real is set or real is frozenset:
                check_expanded_size(args[0], interp.limits)
        if "key" in kwargs:
            kwargs = {**kwargs, "key": script_callable(interp, kwargs["key"], node)}
        return interp._call_plain(real, args, kwargs, node)

    return handler


def _dict(interp, args, kwargs, node):
    if args and not isinstance(args[0], dict):
        args = [interp._materialize(args[0], node), *args[1:]]
    return interp._call_plain(dict, args, kwargs, node)


def _min_max(real):
    def handler(interp, args, kwargs, node):
        if len(args) == 1 and type(args[0]) is range and args[0] and "key" not in kwargs:
            r = args[0]  # an end of the range, as C would find it by walking all of it
            return r[-1] if (real is max) == (r.step > 0) else r[0]
        if len(args) == 1:
            args = [interp._materialize(args[0], node)]
        for a in args:
            check_expanded_size(a, interp.limits)
        if "key" in kwargs:
            kwargs = {**kwargs, "key": script_callable(interp, kwargs["key"], node)}
        return interp._call_plain(real, args, kwargs, node)

    return handler


def _sum(interp, args, kwargs, node):
    """``sum(items)``: every item taken is a step of the statement budget, as a loop's would be
    (no list is built); a range longer than the steps left is refused before it starts."""
    if not args:
        return interp._call_plain(builtins.sum, args, kwargs, node)
    items = args[0]
    start = kwargs.get("start", args[1] if len(args) > 1 else 0)
    if isinstance(start, (list, tuple, str, bytes)):
        total = start
        for item in interp._materialize(items, node):
            total = interp._binop(_add, total, item, node)
        return total
    t = type(items)
    if t is range:
        interp._take_steps(_range_length(items), node, "sum()")
        if type(start) in (int, float, bool):  # C adds these at once, within the steps taken
            total = interp._native(builtins.sum, [items, *args[1:]], kwargs, node)
            if type(total) is int:
                checked(check_int_bits, total.bit_length(), interp.limits, node=node)
            return total
    if t is not list and t is not tuple:
        items = interp._counted(items, node)
    return interp._call_plain(builtins.sum, [items, *args[1:]], kwargs, node)


def _range_length(r: range) -> int:
    try:
        return len(r)
    except OverflowError:  # more than sys.maxsize items: len()'s count, without the C size
        return max(0, (r.stop - r.start + r.step + (-1 if r.step > 0 else 1)) // r.step)


def _add(a, b):
    return a + b


def _any_all(want):
    def handler(interp, args, kwargs, node):
        if len(args) != 1 or kwargs:
            return interp._call_plain(builtins.any if want else builtins.all, args, kwargs, node)
        for item in interp._iterate(args[0], node):
            interp._tick()
            if interp._truth(item, node) is want:
                return want
        return not want

    return handler


def _text(real):
    def handler(interp, args, kwargs, node):
        if len(args) == 1 and not kwargs:
            try:
                return interp._to_text(real, args[0])
            except ScriptError as e:
                raise e.at(node)
            except Exception as e:
                raise interp._runtime(e, node) from e
        return interp._call_plain(real, args, kwargs, node)

    return handler


def function_specials() -> dict:
    import operator

    _power_op = operator.pow

    def pow_handler(interp, args, kwargs, node):
        if len(args) == 2 and not kwargs:
            return interp._binop(_power_op, args[0], args[1], node)
        values = dict(zip(("base", "exp", "mod"), args))
        values.update(kwargs)
        base, exp, mod = values.get("base"), values.get("exp"), values.get("mod")
        if mod is None:
            checked(check_binop, _power_op, base, exp, interp.limits, node=node)
        else:
            checked(check_modular_pow, base, exp, mod, interp.limits, node=node)
        return interp._call_plain(builtins.pow, args, kwargs, node)

    def round_handler(interp, args, kwargs, node):
        ndigits = kwargs.get("ndigits", args[1] if len(args) > 1 else None)
        if args:
            checked(check_round, args[0], ndigits, interp.limits, node=node)
        return interp._call_plain(builtins.round, args, kwargs, node)

    def int_handler(interp, args, kwargs, node):
        if args and isinstance(args[0], (str, bytes, bytearray)):
            base = kwargs.get("base", args[1] if len(args) > 1 else 10)
            checked(check_int_text, args[0], base, interp.limits, node=node)
        return interp._call_plain(int, args, kwargs, node)

    def bytes_handler(real):
        def handler(interp, args, kwargs, node):
            size = args[0] if args else None
            if isinstance(size, int) and not isinstance(size, bool):
                checked(check_length, size, interp.limits.max_string, b"", node=node)
            return interp._call_plain(real, args, kwargs, node)

        return handler

    table = {
        _creation.zeros: _sized(_creation.zeros, size_from_args),
        _creation.ones: _sized(_creation.ones, size_from_args),
        _creation.empty: _sized(_creation.empty, size_from_args),
        _creation.rand: _sized(_creation.rand, size_from_args),
        _creation.randn: _sized(_creation.randn, size_from_args),
        _creation.full: _sized(_creation.full, _full_size),
        _creation.randint: _sized(_creation.randint, _randint_size),
        _creation.arange: _sized(_creation.arange, arange_length),
        _creation.linspace: _sized(_creation.linspace, _steps_size),
        _creation.logspace: _sized(_creation.logspace, _steps_size),
        _creation.eye: _sized(_creation.eye, _eye_size),
        _creation.normal: _sized(_creation.normal, lambda a, k: size_from_args((), k)
                                 if "size" in k else None),
        Tensor: _sized(Tensor, _tensor_ctor_size),
        _tensor_format.set_printoptions: _set_printoptions,
        _autograd.backward: _autograd_backward,
        builtins.str: _text(str),
        builtins.repr: _text(repr),
        builtins.list: _collection(list),
        builtins.tuple: _collection(tuple),
        builtins.set: _collection(set),
        builtins.frozenset: _collection(frozenset),
        builtins.sorted: _collection(sorted),
        builtins.dict: _dict,
        builtins.min: _min_max(min),
        builtins.max: _min_max(max),
        builtins.sum: _sum,
        builtins.any: _any_all(True),
        builtins.all: _any_all(False),
        builtins.enumerate: _wrap_iter(enumerate),
        builtins.zip: _wrap_iter(zip),
        builtins.map: _wrap_iter(map),
        builtins.filter: _wrap_iter(filter),
        builtins.reversed: _wrap_iter(reversed),
        builtins.iter: _wrap_iter(iter),
        builtins.pow: pow_handler,
        builtins.round: round_handler,
        builtins.int: int_handler,
        builtins.bytes: bytes_handler(bytes),
        builtins.bytearray: bytes_handler(bytearray),
        LBFGS.step: _lbfgs_step_through_class,
    }
    return {id(k): v for k, v in table.items()}


def checked(check, *args, node):
    """``check(*args)``, its ScriptError placed at ``node``."""
    try:
        check(*args)
    except ScriptError as e:
        raise e.at(node)


# The builtins (not classes) a script receives as the interpreter's own callables: wherever they
# are called from (``map(pow, ...)``, ``sorted(key=repr)``, engine code calling back), they run
# their special, with its checks.
WRAPPED_BUILTINS = ("pow", "round", "sorted", "min", "max", "sum", "any", "all", "enumerate", "zip",
                    "map", "filter", "reversed", "iter", "repr")


def script_builtins(interp) -> dict:
    """``{name: Builtin}`` for WRAPPED_BUILTINS; registers each in ``interp._specials`` so that a
    direct call still dispatches to its special with the call's node. Made once per interpreter
    (the ids in ``_specials`` must stay those of live objects)."""
    out = {}
    for name in WRAPPED_BUILTINS:
        real = getattr(builtins, name)
        special = interp._specials.get(id(real))
        if special is None:
            continue

        def call(*args, _special=special, **kwargs):
            return _special(interp, list(args), kwargs, None)

        wrapper = Builtin(name, call)
        interp._specials[id(wrapper)] = special
        out[name] = wrapper
    return out


def check_tolist(interp, array, node) -> None:
    """``x.tolist()`` builds a Python object per element: refuse past ``max_list`` before."""
    n = array.size
    if n > interp.limits.max_list:
        raise limit(f"tolist() of {n} elements: the list would be too long (the limit is "
                    f"{interp.limits.max_list})", node)
    if n >= 8192:
        interp._memory.check_process(node)


def _tensor_tolist(interp, tensor, args, kwargs, node):
    check_tolist(interp, tensor._data, node)
    return interp._call_plain(Tensor.tolist.__get__(tensor), args, kwargs, node)


_COMPARING_METHODS = frozenset({"count", "index", "remove", "sort", "__contains__"})


def container_method(interp, func, args, kwargs, node):
    """A builtin method about to run: ``xs.count(b)``, ``xs.sort()`` compare the script's nested
    data item by item (measured first, as ``==`` is); ``xs.sort(key=int)`` calls its key as the
    script would; ``array.tolist()`` is sized first. Returns the keyword arguments to call with."""
    owner = func.__self__
    name = func.__name__
    if type(owner) is range:
        if name in _COMPARING_METHODS and args:
            checked(check_range_search, owner, args[0], interp.limits, node=node)
    elif isinstance(owner, (list, tuple, dict, set, frozenset)):
        if name in _COMPARING_METHODS:
            check_expanded_size(owner, interp.limits)
            for a in args:
                check_expanded_size(a, interp.limits)
            if kwargs and "key" in kwargs:
                kwargs = {**kwargs, "key": script_callable(interp, kwargs["key"], node)}
    elif isinstance(owner, np.ndarray):
        if name == "tolist":
            check_tolist(interp, owner, node)
        elif name == "dot":  # a (10**5, 1) array .dot a (1, 10**5) one
            from .numpy_subset import _dot_size

            checked(check_elements, _dot_size((owner, *args), {}), interp.limits, node=node)
        elif name == "astype":  # astype('U'): a string array, allocated before it is screened
            from .numpy_subset import check_dtype

            check_dtype(args[0] if args else kwargs.get("dtype"))
    return kwargs


def method_specials() -> dict:
    table = {Tensor.backward: _tensor_backward, Tensor.tolist: _tensor_tolist,
             LBFGS.step: _lbfgs_step}
    for name, size_of in (("expand", _expand_size), ("repeat", _repeat_size)):
        fn = getattr(Tensor, name, None)
        if fn is not None:
            table[fn] = _method_with_size(name, size_of)
    return {id(k): v for k, v in table.items()}


def _lbfgs_step(interp, opt, args, kwargs, node):
    # LBFGS.step calls its closure in a loop of its own, up to max_iter / max_eval times: each
    # call counts as a statement and honours stop(), so that a closure of engine code alone
    # (``opt.step(w.sum)``), which runs no statement of the script, cannot loop unbounded
    args = list(args)
    if args:
        args[0] = _counted_closure(interp, args[0])
    elif "closure" in kwargs:
        kwargs = {**kwargs, "closure": _counted_closure(interp, kwargs["closure"])}
    return interp._call_plain(LBFGS.step, [opt, *args], kwargs, node)


def _lbfgs_step_through_class(interp, args, kwargs, node):
    # ``torch.optim.LBFGS.step(opt, closure)``: the same call, its closure counted alike
    if not args:
        return interp._call_plain(LBFGS.step, args, kwargs, node)
    return _lbfgs_step(interp, args[0], args[1:], kwargs, node)


def _counted_closure(interp, closure):
    if not callable(closure):
        return closure  # LBFGS.step reports it as torch does

    def counted():
        interp._tick()
        return closure()

    return counted


def _method_with_size(name, size_of):
    def handler(interp, obj, args, kwargs, node):
        try:
            check_elements(size_of(obj, args, kwargs), interp.limits)
        except ScriptError as e:
            raise e.at(node)
        return interp._call_plain(getattr(type(obj), name).__get__(obj), args, kwargs, node)

    return handler


# -- guarded str methods ---------------------------------------------------------------------------


def _str_format(interp):
    def format(self, *args, **kwargs):
        return safe_format(self, args, kwargs, interp.limits, interp._format)

    return format


def _str_join(interp):
    def join(self, iterable):
        items = interp._materialize(iterable)
        total = len(self) * max(len(items) - 1, 0)
        for item in items:
            total += len(item) if isinstance(item, (str, bytes)) else 0
        check_length(total, interp.limits.max_string, self)
        return type(self).join(self, items)

    return join


def _str_replace(interp):
    def replace(self, old, new, count=-1):
        if isinstance(old, (str, bytes)) and isinstance(new, (str, bytes)) and len(new) > len(old):
            n = self.count(old) if old else len(self) + 1
            if count >= 0:
                n = min(n, count)
            check_length(len(self) + n * (len(new) - len(old)), interp.limits.max_string, self)
        return type(self).replace(self, old, new, count)

    return replace


def _str_pad(interp, name):
    real = getattr(str, name)

    def pad(self, width, *rest):
        if isinstance(width, int):
            check_length(width, interp.limits.max_string, self)
        return getattr(type(self), name)(self, width, *rest) if type(self) is not str else real(
            self, width, *rest)

    pad.__name__ = name
    return pad


def text_methods(interp) -> dict:
    methods = {"format": _str_format(interp), "join": _str_join(interp),
               "replace": _str_replace(interp)}
    for name in ("center", "ljust", "rjust", "zfill"):
        methods[name] = _str_pad(interp, name)
    return methods



# -- dir() -----------------------------------------------------------------------------------------


def script_dir(interp, *args):
    """``dir()``: the running frame's names; ``dir(x)``: Python's list for the script's own
    classes and their objects, the public names for everything else (engine objects, modules)."""
    if not args:
        act = interp._stack[-1] if interp._stack else None
        return sorted(act.locals) if act is not None else []
    if len(args) > 1:
        raise TypeError(f"dir expected at most 1 argument, got {len(args)}")
    obj = args[0]
    own = obj in interp._script_classes if isinstance(obj, type) else (
        type(obj) in interp._script_classes)
    names = builtins.dir(obj)
    if own:
        return names
    return [n for n in names if not n.startswith("_")]
