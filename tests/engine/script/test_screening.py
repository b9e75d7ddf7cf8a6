"""One screen for every value the sandbox hands to a script: each entry point (attribute read, call
result, operator, subscript, iteration, unpacking, ``with``, arguments from engine code...) gives
the same verdict, with the same error kind and message, as ``Interpreter._screen`` itself; and the
screen's fast paths return what its per-class rules would."""

from __future__ import annotations

import builtins
import os
import sys
import types

import greenlet
import numpy as np
import pytest

import engine
import engine.nn
from engine.script import Interpreter, Limits, ScriptError
from engine.script.modules import ModuleProxy
from engine.script.objects import SafeIterator
from engine.script.scopes import Activation
from engine.script.screening import PASS, ScreeningMixin, screen_rule

LIMITS = Limits(max_tensor_elements=1000, max_string=100)


def _frame():
    return sys._getframe()


def _generator():
    yield 1


def _started_generator_frame():
    g = _generator()
    return g.gi_frame


def _traceback():
    try:
        raise ValueError("x")
    except ValueError as e:
        return e.__traceback__


def _cell():
    x = 1
    return (lambda: x).__closure__[0]


class _Custom:
    pass


# name -> (make the value, expected verdict): "same" (the value itself), a class (what stands in
# for it), or (kind, message)
VALUES = {
    "int": (lambda: 3, "same"),
    "float": (lambda: 2.5, "same"),
    "bool": (lambda: True, "same"),
    "None": (lambda: None, "same"),
    "str": (lambda: "text", "same"),
    "list": (lambda: [1, 2], "same"),
    "tuple": (lambda: (1, 2), "same"),
    "dict": (lambda: {"a": 1}, "same"),
    "small tensor": (lambda: engine.ones(3), "same"),
    "parameter": (lambda: engine.nn.Parameter(engine.ones(2)), "same"),
    "layer": (lambda: engine.nn.Linear(2, 2), "same"),
    "engine module": (lambda: engine.nn, ModuleProxy),
    "generator": (lambda: (x for x in [1]), SafeIterator),
    "list.append": (lambda: [].append, "same"),
    "len": (lambda: len, "same"),
    "ndarray": (lambda: np.zeros(3), "same"),
    "numpy dtype class": (lambda: np.float32, "same"),
    "numpy function": (lambda: np.zeros, "same"),
    "ufunc": (lambda: np.exp, "same"),
    "exception": (lambda: ValueError("x"), "same"),
    "own object": (lambda: _Custom(), "same"),
    "own function": (lambda: _frame, "same"),
    # refused
    "os module": (lambda: os, ("forbidden", "module 'os' is not available to scripts")),
    "sys module": (lambda: sys, ("forbidden", "module 'sys' is not available to scripts")),
    "frame": (_frame, ("forbidden", "a frame object is not available to scripts")),
    "generator's gi_frame": (_started_generator_frame,
                             ("forbidden", "a frame object is not available to scripts")),
    "code": (lambda: _frame.__code__, ("forbidden", "a code object is not available to scripts")),
    "traceback": (_traceback, ("forbidden", "a traceback object is not available to scripts")),
    "cell": (_cell, ("forbidden", "a cell object is not available to scripts")),
    "mappingproxy": (lambda: type.__dict__,
                     ("forbidden", "a mappingproxy object is not available to scripts")),
    "__globals__": (lambda: _frame.__globals__,
                    ("forbidden", "a module's namespace is not available to scripts")),
    "vars(builtins)": (lambda: vars(builtins),
                       ("forbidden", "a module's namespace is not available to scripts")),
    "type": (lambda: type, ("forbidden", "'type' is not available")),
    "object.__subclasses__": (lambda: object.__subclasses__,
                              ("forbidden", "'__subclasses__' is not available")),
    "int.__subclasses__": (lambda: int.__subclasses__,
                           ("forbidden", "'__subclasses__' is not available")),
    "open": (lambda: open, ("forbidden", "'open' is not available")),
    "eval": (lambda: eval, ("forbidden", "'eval' is not available")),
    "os.system": (lambda: os.system, ("forbidden", "'posix.system' is not available")),
    "sys._getframe": (lambda: sys._getframe, ("forbidden", "'sys._getframe' is not available")),
    "exec": (lambda: exec, ("forbidden", "'exec' is not available")),
    "frame.clear": (lambda: _frame().clear,
                    ("forbidden", "a frame object is not available to scripts")),
    "code.replace": (lambda: _frame.__code__.replace,
                     ("forbidden", "a code object is not available to scripts")),
    "method of a frame": (lambda: types.MethodType(_generator, _frame()),
                          ("forbidden", "a frame object is not available to scripts")),
    "ndarray.ctypes": (lambda: np.zeros(2).ctypes,
                       ("forbidden", "a _ctypes object is not available to scripts")),
    "ndarray.flags": (lambda: np.zeros(2).flags,
                      ("forbidden", "a flagsobj object is not available to scripts")),
    "ndarray.data": (lambda: np.zeros(2).data,
                     ("forbidden", "a memoryview object is not available to scripts")),
    "interpreter": (lambda: Interpreter(""),
                    ("forbidden", "a Interpreter object is not available to scripts")),
    "activation": (lambda: Activation("f", {}),
                   ("forbidden", "a Activation object is not available to scripts")),
    "greenlet": (greenlet.getcurrent,
                 ("forbidden", "a greenlet object is not available to scripts")),
    "large tensor": (lambda: engine.zeros(2000),
                     ("limit", "tensor too large: 2000 elements (the limit is 1000)")),
    "large ndarray": (lambda: np.zeros(2000),
                      ("limit", "tensor too large: 2000 elements (the limit is 1000)")),
    "long string": (lambda: "x" * 200,
                    ("limit", "string too long: 200 elements (the limit is 100)")),
}


class Host:
    """Engine code as the script meets it: every way it hands ``value`` over."""

    def __init__(self, value):
        self.value = value

    def get(self):
        return self.value

    def call(self, fn):
        return fn(self.value)

    def __add__(self, other):
        return self.value

    def __neg__(self):
        return self.value

    def __lt__(self, other):
        return self.value

    def __getitem__(self, key):
        return self.value

    def __iter__(self):
        return iter([self.value])


class HostContext:
    def __init__(self, value):
        self.value = value

    def __enter__(self):
        return self.value

    def __exit__(self, *exc):
        return False


HostContext.__module__ = "engine.testing_host"  # the interpreter enters only the engine's managers

# entry point -> script; the value it hands over ends in ``got`` (ns["got"][0] for ``*[0]``)
ENTRY_POINTS = {
    "attribute": "got = host.value\n",
    "method call": "got = host.get()\n",
    "function call": "got = get_value()\n",
    "bound method call": "f = host.get\ngot = f()\n",
    "binary operator": "got = host + 1\n",
    "augmented assignment": "got = host\ngot += 1\n",
    "unary operator": "got = -host\n",
    "comparison": "got = host < 1\n",
    "subscript": "got = host[0]\n",
    "for over a list": "for got in host_list:\n    pass\n",
    "for over an object": "for got in host:\n    pass\n",
    "list comprehension[0]": "got = [v for v in host_list]\n",
    "generator expression[0]": "got = list(v for v in host_list)\n",
    "map[0]": "got = list(map(lambda v: v, host_list))\n",
    "next(iter())": "got = next(iter(host_list))\n",
    "unpacking": "got, = host_list\n",
    "starred argument": "def f(v):\n    return v\ngot = f(*host_list)\n",
    "keyword mapping": "def f(v):\n    return v\ngot = f(**host_dict)\n",
    "argument from engine code": "def f(v):\n    global got\n    got = v\nhost.call(f)\n",
    "with ... as": "with host_context as got:\n    pass\n",
}


class HostInterpreter(Interpreter):
    def __init__(self, source, value):
        super().__init__(source, limits=LIMITS)
        self._value = value

    def _make_builtins(self):
        names = super()._make_builtins()
        value = self._value
        names.update(host=Host(value), host_list=[value], host_dict={"v": value},
                     get_value=lambda: value, host_context=HostContext(value))
        return names


def _verdict(get):
    try:
        return "allow", get()
    except ScriptError as e:
        return "refuse", e.kind, e.message


def _expected(make):
    interp = Interpreter("", limits=LIMITS)
    value = make()
    return value, _verdict(lambda: interp._screen(value))


@pytest.mark.parametrize("name", VALUES)
def test_the_screen_gives_the_documented_verdict(name):
    make, want = VALUES[name]
    value, verdict = _expected(make)
    if want == "same":
        assert verdict == ("allow", value) and verdict[1] is value
    elif isinstance(want, type):
        assert verdict[0] == "allow" and type(verdict[1]) is want
    else:
        assert verdict == ("refuse", *want)


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("name", VALUES)
def test_every_entry_point_gives_the_screens_verdict(name, entry):
    make, want = VALUES[name]
    _, expected = _expected(make)
    value = make()
    interp = HostInterpreter(ENTRY_POINTS[entry], value)

    def got():
        ns = interp.run()
        return ns["got"][0] if entry.endswith("[0]") else ns["got"]

    verdict = _verdict(got)
    if expected[0] == "refuse":
        assert verdict == expected
        return
    assert verdict[0] == "allow", verdict
    if want == "same":
        assert verdict[1] is value
    else:
        assert type(verdict[1]) is type(expected[1])
        if isinstance(expected[1], ModuleProxy):
            assert verdict[1] is expected[1]


def test_a_caught_exception_is_screened_as_itself():
    source = "try:\n    host.get()\nexcept ValueError as e:\n    got = e\n"

    class Raising(Host):
        def get(self):
            raise self.value

    exc = ValueError("x")
    interp = Interpreter(source)
    interp._make_builtins = lambda: {**Interpreter._make_builtins(interp), "host": Raising(exc)}
    assert interp.run()["got"] is exc


def test_refusals_point_at_the_entry_point():
    interp = HostInterpreter("x = 1\ny = host.value\n", os)
    with pytest.raises(ScriptError) as err:
        interp.run()
    assert (err.value.line, err.value.col) == (2, 4)


@pytest.mark.parametrize("name", VALUES)
def test_fast_paths_only_short_circuit_the_rules(name):
    make, _ = VALUES[name]
    interp = Interpreter("", limits=LIMITS)
    value = make()
    via_screen = _verdict(lambda: interp._screen(value))
    via_rule = _verdict(lambda: screen_rule(type(value))(interp, value, None))
    if via_screen[0] == "allow" and isinstance(via_screen[1], SafeIterator):
        assert type(via_rule[1]) is SafeIterator
    else:
        assert via_rule == via_screen
    if via_screen[0] == "allow":  # screening what was screened changes nothing
        again = interp._screen(via_screen[1])
        assert again is via_screen[1]


def test_the_pass_classes_are_the_ones_whose_rule_passes():
    for cls in PASS:
        assert screen_rule(cls) is ScreeningMixin._pass, cls
