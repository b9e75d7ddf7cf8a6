"""``import argparse``: ``ArgumentParser`` for the command-line block every pytorch/examples
script starts with. A pasted script has no command line, so ``parse_args()`` parses an empty one
(the defaults); ``parse_args(['--lr', '0.1'])`` parses the given list.

The script gets a small stand-in around a real ``argparse.ArgumentParser`` that it cannot reach
(an underscore name): only the methods below, and only the keyword arguments argparse's common
uses need. What could reach outside or grow without bound is refused or capped before argparse
sees it: ``fromfile_prefix_chars`` (it opens files), an action given as a class, an ``nargs``
count above ``MAX_NARGS`` (argparse builds a pattern as long as it), more than ``MAX_ARGUMENTS``
arguments, ``choices`` longer than the container limit (they are printed in help and errors).
``type=`` is called through the interpreter, so a script function given as type runs under the
script's guards. A parse error is argparse's message, raised as the ``SystemExit`` that argparse
raises: it ends the script with an error at its line (the usage is printed first, as argparse
prints it); ``-h`` prints the help and ends the script the same way.
"""

from __future__ import annotations

import argparse

from ..errors import ScriptError, forbidden, limit
from ..measure import check_printed_size
from ._support import call_back, pool

MISSING_NOTE = ("only argparse's ArgumentParser, Namespace, ArgumentTypeError and "
                "ArgumentError are")
MAX_NARGS = 100
MAX_ARGUMENTS = 500
PROG = "script.py"  # what argparse would take from sys.argv[0]; a pasted script has no file
_ACTIONS = frozenset({"store", "store_const", "store_true", "store_false", "append",
                      "append_const", "count", "help", "version", "extend"})
_ARGUMENT_KEYS = frozenset({"action", "nargs", "const", "default", "type", "choices",
                            "required", "help", "metavar", "dest", "version"})
_PARSER_KEYS = frozenset({"prog", "usage", "description", "epilog", "add_help", "allow_abbrev",
                          "prefix_chars", "argument_default", "conflict_handler",
                          "exit_on_error"})


class _Exit(Exception):
    """argparse's exit, caught by the stand-in (argparse itself would raise SystemExit)."""

    def __init__(self, status: int, message: str | None) -> None:
        super().__init__(message)
        self.status, self.message = status, message


class _Parser(argparse.ArgumentParser):
    """argparse's parser with its exits and output turned back to the stand-in."""

    def __init__(self, printer, **kwargs) -> None:
        self._printer = printer
        super().__init__(**kwargs)

    def exit(self, status=0, message=None):
        raise _Exit(status, message)

    def error(self, message):
        self.print_usage()
        raise _Exit(2, f"{self.prog}: error: {message}")

    def _print_message(self, message, file=None):
        if message:
            self._printer(message.rstrip("\n"))


class _Group:
    """What ``add_argument_group`` and ``add_mutually_exclusive_group`` return."""

    def __init__(self, parser: "ArgumentParser", group) -> None:
        self._parser = parser
        self._group = group

    def add_argument(self, *names, **kwargs):
        return self._parser._add(self._group, names, kwargs)


class ArgumentParser:
    """argparse's ``ArgumentParser``, as far as a script without a command line needs it."""

    def __init__(self, interp, **kwargs) -> None:
        unknown = set(kwargs) - _PARSER_KEYS
        if "fromfile_prefix_chars" in unknown:
            raise forbidden("ArgumentParser(fromfile_prefix_chars=...) reads files, which "
                            "gradstep scripts cannot")
        if unknown:
            raise TypeError(f"ArgumentParser() got an unexpected keyword argument "
                            f"'{sorted(unknown)[0]}' (not available in gradstep scripts)")
        kwargs.setdefault("prog", PROG)
        self._interp = interp
        self._count = 0
        self._chars = 0
        self._parser = _Parser(interp._print, **kwargs)

    # -- building ----------------------------------------------------------------------------------
    def _add(self, target, names, kwargs):
        unknown = set(kwargs) - _ARGUMENT_KEYS
        if unknown:
            raise TypeError(f"add_argument() got an unexpected keyword argument "
                            f"'{sorted(unknown)[0]}' (not available in gradstep scripts)")
        self._count += 1
        if self._count > MAX_ARGUMENTS:
            raise limit(f"argparse: more than {MAX_ARGUMENTS} arguments")
        action = kwargs.get("action", "store")
        if not isinstance(action, str) or action not in _ACTIONS:
            raise forbidden(f"add_argument(action={action!r}): only argparse's own actions "
                            f"({', '.join(sorted(_ACTIONS))}) are available")
        nargs = kwargs.get("nargs")
        if isinstance(nargs, int) and nargs > MAX_NARGS:
            raise limit(f"add_argument(nargs={nargs}): gradstep's limit is {MAX_NARGS}")
        if kwargs.get("choices") is not None:
            kwargs["choices"] = pool(self._interp, kwargs["choices"], "argparse choices")
        self._measure(names, kwargs)
        if "type" in kwargs and kwargs["type"] is not None:
            kwargs["type"] = self._typed(kwargs["type"])
        self._run(target.add_argument, *names, **kwargs)

    def _measure(self, names, kwargs) -> None:
        """Keep the help text (every name, help, metavar and choice, and the defaults it may
        show) within the string limit, before argparse formats it."""
        limits = self._interp.limits
        shown = [names, kwargs.get("help"), kwargs.get("metavar"), kwargs.get("choices")]
        if "%(default)" in str(kwargs.get("help", "")):
            shown.append(kwargs.get("default"))
        self._chars += sum(check_printed_size(v, limits) for v in shown if v is not None)
        if self._chars > limits.max_string:
            raise limit(f"argparse: the help text would be longer than {limits.max_string} "
                        "characters")

    def _typed(self, fn):
        """``fn`` called through the interpreter, named as argparse names it in its errors."""
        interp = self._interp
        if not callable(fn):
            raise ValueError(f"{fn!r} is not callable")

        def convert(text):
            return call_back(interp, fn, (text,), {})

        name = getattr(fn, "__name__", None)
        convert.__name__ = name if isinstance(name, str) else "type"
        return convert

    def add_argument(self, *names, **kwargs) -> None:
        """``parser.add_argument('--lr', type=float, default=0.01, help=...)``."""
        self._add(self._parser, names, kwargs)

    def add_argument_group(self, title=None, description=None) -> _Group:
        return _Group(self, self._parser.add_argument_group(title, description))

    def add_mutually_exclusive_group(self, required=False) -> _Group:
        return _Group(self, self._parser.add_mutually_exclusive_group(required=required))

    def set_defaults(self, **kwargs) -> None:
        self._parser.set_defaults(**kwargs)

    def get_default(self, dest):
        return self._parser.get_default(dest)

    # -- parsing and help --------------------------------------------------------------------------
    def _run(self, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except _Exit as e:
            text = f": {e.message.strip()}" if e.message else ""
            raise ScriptError("runtime", f"SystemExit: {e.status}{text}") from SystemExit(e.status)

    @staticmethod
    def _namespace(namespace):
        # argparse sets attributes on it natively: only a Namespace, which scripts may change
        if namespace is not None and type(namespace) is not argparse.Namespace:
            raise forbidden("parse_args(namespace=...) takes an argparse.Namespace only")
        return namespace

    def _arguments(self, args):
        if args is None:
            return []  # no command line: every argument takes its default
        items = pool(self._interp, args, "parse_args")
        for item in items:
            if not isinstance(item, str):
                raise TypeError(f"parse_args expects a list of strings, got {type(item).__name__}")
        return list(items)

    def parse_args(self, args=None, namespace=None):
        """The defaults (no command line), or ``args`` parsed: an ``argparse.Namespace``."""
        return self._run(self._parser.parse_args, self._arguments(args), self._namespace(namespace))

    def parse_known_args(self, args=None, namespace=None):
        return self._run(self._parser.parse_known_args, self._arguments(args),
                         self._namespace(namespace))

    def format_help(self) -> str:
        return self._parser.format_help()

    def format_usage(self) -> str:
        return self._parser.format_usage()

    def print_help(self) -> None:
        self._interp._print(self.format_help().rstrip("\n"))

    def print_usage(self) -> None:
        self._interp._print(self.format_usage().rstrip("\n"))

    def error(self, message) -> None:
        self._run(self._parser.error, str(message))


def build(interp) -> dict:
    def parser(*args, **kwargs) -> ArgumentParser:
        if args:  # argparse's first positional parameter is prog
            if len(args) > 1:
                raise TypeError("ArgumentParser(): pass its options by name")
            kwargs["prog"] = args[0]
        return ArgumentParser(interp, **kwargs)

    parser.__name__ = "ArgumentParser"
    return {"ArgumentParser": parser, "Namespace": argparse.Namespace,
            "ArgumentTypeError": argparse.ArgumentTypeError,
            "ArgumentError": argparse.ArgumentError,
            "SUPPRESS": argparse.SUPPRESS}
