"""Plain-Python programs: the interpreter must give what CPython gives (CPython is the oracle,
running the same text with ``exec`` in the test). Namespaces and printed output are compared."""

from __future__ import annotations

import contextlib
import io
from textwrap import dedent

import pytest

from engine.script import Interpreter, ScriptError

PROGRAMS = {
    "closures_late_binding": """
        fns = []
        for i in range(3):
            fns.append(lambda: i)
        late = [f() for f in fns]
        def outer():
            v = 1
            def inner():
                return v
            v = 2
            return inner()
        r = outer()
    """,
    "defaults_evaluated_once": """
        def add(x, acc=[]):
            acc.append(x)
            return len(acc)
        a = add(1)
        b = add(2)
        def kw(a, *, b=2, **rest):
            return (a, b, sorted(rest.items()))
        c = kw(1, c=3, b=4)
    """,
    "star_calls_and_unpacking": """
        def f(a, b, *args, c=0, **kw):
            return a, b, args, c, sorted(kw)
        args = [1, 2, 3]
        kw = {"c": 5, "z": 1}
        r1 = f(*args, **kw)
        r2 = f(0, *args[1:], d=4)
        merged = {**kw, "y": 2}
        joined = [*args, *"ab"]
        first, *rest = range(5)
        m = [[1, 2], [3, 4]]
        t = list(zip(*m))
    """,
    "try_finally_return": """
        log = []
        def f():
            try:
                log.append("try")
                return 1
            finally:
                log.append("finally")
        def g():
            try:
                raise KeyError("k")
            except ValueError:
                return "value"
            except KeyError as e:
                return "key " + str(e)
            else:
                return "else"
        def h():
            for i in range(3):
                try:
                    if i == 1:
                        continue
                    log.append(i)
                finally:
                    log.append("f%d" % i)
            return log
        a = f()
        b = g()
        c = h()
    """,
    "try_else_and_reraise": """
        out = []
        try:
            out.append(1)
        except Exception:
            out.append(2)
        else:
            out.append(3)
        def again():
            try:
                [][1]
            except IndexError:
                raise
        try:
            again()
        except IndexError as e:
            out.append(type(e).__name__)
    """,
    "loops_else": """
        found = None
        for n in range(2, 10):
            for d in range(2, n):
                if n % d == 0:
                    break
            else:
                found = n if found is None else found
        k = 0
        while k < 3:
            k += 1
        else:
            k = -k
    """,
    "comprehension_scopes": """
        x = 10
        squares = [x * x for x in range(4)]
        after = x
        pairs = [(a, b) for a in range(3) for b in range(a) if (a + b) % 2]
        nested = {k: [v * 2 for v in range(k)] for k in range(3)}
        gen = list(v for v in range(5) if v > 1)
        s = {c for c in "hello"}
    """,
    "classes_and_inheritance": """
        class Base:
            kind = "base"
            def __init__(self, v):
                self.v = v
            def describe(self):
                return f"{self.kind}:{self.v}"
        class Child(Base):
            kind = "child"
            def __init__(self, v, w):
                super().__init__(v)
                self.w = w
            def describe(self):
                return super().describe() + f"+{self.w}"
        c = Child(1, 2)
        d = c.describe()
        isb = isinstance(c, Base)
        name = type(c).__name__
        class Counter:
            def __init__(self):
                self.n = 0
            def __call__(self, step=1):
                self.n += step
                return self.n
        counter = Counter()
        counter()
        total = counter(5)
    """,
    "strings_and_formatting": """
        name = "world"
        a = f"hello {name!r:>10} {3.14159:.2f} {42:05d} {'x' * 3}"
        b = "{0}-{1}-{0}".format("a", "b")
        c = "%s has %d items (%.1f%%)" % ("cart", 3, 12.5)
        d = "  Strip Me  ".strip().lower().split()
        e = ",".join(str(i) for i in range(4))
        f = "abc"[::-1] + "abcdef"[1:4]
        g = "a-b-c".replace("-", "+", 1).center(9, "*")
        h = f"{'nested ' + f'{1 + 1}'}"
        print(a, b, c, sep="\\n")
        print(d, e, f, g, h, end=".\\n")
    """,
    "numbers": """
        a = 7 // 2, -7 // 2, 7 % 3, -7 % 3, 2 ** -1, divmod(-7, 2)
        b = round(2.5), round(3.5), round(1.2345, 2), abs(-3), pow(2, 5, 7)
        c = int("42") + int(3.9) + int(True)
        d = float("inf") > 1e308, 0.1 + 0.2 == 0.3
        e = (5 & 3, 5 | 3, 5 ^ 3, ~5, 1 << 10, 1024 >> 3)
        f = max([3, 1, 2]), min(4, 2, 8), sum([0.5, 0.25]), sum(range(10), 5)
        g = sorted([3, 1, 2], reverse=True), list(reversed(range(3)))
        h = all([]), any([]), bool(""), bool([0])
    """,
    "dict_and_set_ops": """
        d = {"a": 1, "b": 2}
        d["c"] = 3
        d.pop("a")
        keys = sorted(d)
        vals = sorted(d.values())
        got = d.get("zz", -1)
        d.setdefault("e", []).append(5)
        s = {1, 2, 3} & {2, 3, 4}
        u = {1} | {5}
        del d["b"]
        items = sorted(d.items())
    """,
    "global_nonlocal_recursion": """
        calls = 0
        def fib(n):
            global calls
            calls += 1
            return n if n < 2 else fib(n - 1) + fib(n - 2)
        f10 = fib(10)
        def make():
            count = 0
            def inc():
                nonlocal count
                count += 1
                return count
            return inc
        inc = make()
        inc()
        last = inc()
    """,
    "walrus_and_conditional": """
        data = [3, 8, 1, 9]
        if (n := len(data)) > 3:
            size = "big"
        else:
            size = "small"
        best = max(data) if data else None
        flags = [x > 2 and "hi" or "lo" for x in data]
        chained = 1 < 2 < 3 > 2
    """,
    "errors_are_python_s": """
        def div(a, b):
            return a / b
        r = div(1, 0)
    """,
    "key_error_message": """
        d = {"a": 1}
        v = d["missing"]
    """,
    "unbound_name_in_call": """
        def f():
            return g()
        f()
    """,
    "wrong_arguments": """
        def f(a, b):
            return a
        f(1, 2, 3)
    """,
    "delete_names": """
        x = 1
        y = [1, 2, 3]
        del y[0], x
        try:
            x
        except NameError as e:
            msg = str(e)
    """,
    "isinstance_and_types": """
        checks = [isinstance(1, int), isinstance(True, int), isinstance(1.0, (int, str)),
                  isinstance([], list), isinstance({}, dict), isinstance("s", str)]
        names = [type(v).__name__ for v in (1, 1.0, "s", [], {}, (), None, True)]
        conv = [list("ab"), tuple([1, 2]), dict([("a", 1)]), set([1, 1]), str(12), bool(0)]
    """,
    "iterators": """
        it = iter([1, 2, 3])
        a = next(it)
        rest = list(it)
        d = next(iter([]), "default")
        e = list(enumerate("ab", start=1))
        m = list(map(lambda a, b: a * b, [1, 2], [3, 4]))
        f = list(filter(None, [0, 1, "", "x"]))
    """,
}


def run_python(source):
    namespace = {"__name__": "__main__"}
    out = io.StringIO()
    error = None
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(source, "<python>", "exec"), namespace)
        except Exception as e:
            error = e
    namespace.pop("__builtins__", None)
    namespace.pop("__name__", None)
    return namespace, out.getvalue(), error


def is_plain(v) -> bool:
    if isinstance(v, (int, float, str, bool, type(None))):
        return True
    if isinstance(v, (list, tuple, set)):
        return all(is_plain(x) for x in v)
    if isinstance(v, dict):
        return all(is_plain(k) and is_plain(x) for k, x in v.items())
    return False


def plain(namespace):
    """The names whose values are plain data (functions, classes, instances are left out)."""
    return {k: v for k, v in namespace.items() if is_plain(v)}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_cpython(name):
    source = dedent(PROGRAMS[name]).strip() + "\n"
    want_ns, want_out, want_error = run_python(source)
    interp = Interpreter(source)
    error = None
    try:
        interp.run()
    except ScriptError as e:
        error = e
    if want_error is None:
        assert error is None, repr(error)
    else:
        assert error is not None and error.kind == "runtime", repr(error)
        assert type(error.__cause__) is type(want_error)
        assert str(error.__cause__) == str(want_error)
    assert "".join(interp.output) == want_out
    assert plain(interp.globals) == plain(want_ns)
