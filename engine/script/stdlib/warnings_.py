"""``import warnings``: ``warn``, the warning classes, and the filter calls notebooks open with
(``warnings.filterwarnings('ignore')``, ``simplefilter``, ``with warnings.catch_warnings():``).

``warn`` issues a real warning: the debugger lists it at its line in the lint list, as it lists
PyTorch's own. The filter calls check their arguments as Python's do and change nothing: the
debugger records every warning of every statement (the session catches them per step, so a
filter the script set would not outlive its statement anyway), and the process's filters are
never the script's to change.
"""

from __future__ import annotations

import warnings

from ..errors import forbidden
from ..measure import measured_text

MISSING_NOTE = ("only warnings' warn, filterwarnings, simplefilter, resetwarnings, "
                "catch_warnings and warning classes are")
_ACTIONS = ("error", "ignore", "always", "default", "module", "once")
_CATEGORIES = (Warning, UserWarning, DeprecationWarning, PendingDeprecationWarning,
               SyntaxWarning, RuntimeWarning, FutureWarning, ImportWarning, UnicodeWarning,
               BytesWarning, ResourceWarning)


# Python's filter functions check their arguments with assert, and so these
def _check_action(action) -> None:
    if action not in _ACTIONS:
        raise AssertionError(f"invalid action: {action!r}")


def _check_filter_category(category) -> None:
    if not isinstance(category, type):
        raise AssertionError("category must be a class")
    if not issubclass(category, Warning):
        raise AssertionError("category must be a Warning subclass")


class CatchWarnings:
    """What ``warnings.catch_warnings()`` gives: a context around filter calls that change
    nothing (above)."""

    __slots__ = ()

    def __enter__(self):
        return None

    def __exit__(self, *exc_info):
        return None

    def __repr__(self) -> str:
        return "catch_warnings()"


def build(interp) -> dict:
    limits = interp.limits

    def warn(message, category=None, stacklevel=1, source=None, *, skip_file_prefixes=()):
        if category is not None and not (isinstance(category, type)
                                         and issubclass(category, Warning)):
            raise TypeError("category must be a Warning subclass, not "
                            f"'{type(category).__name__}'")
        if not isinstance(message, Warning):
            message = measured_text(str, message, limits)
        warnings.warn(message, category or UserWarning, stacklevel=2)

    def filterwarnings(action, message="", category=Warning, module="", lineno=0,
                       append=False):
        _check_action(action)
        if not isinstance(message, str):
            raise AssertionError("message must be a string")
        _check_filter_category(category)

    def simplefilter(action, category=Warning, lineno=0, append=False):
        _check_action(action)

    def resetwarnings():
        return None

    def catch_warnings(*, record=False, module=None, action=None, category=Warning, lineno=0,
                       append=False):
        if record:
            raise forbidden("warnings.catch_warnings(record=True) is not available: gradstep "
                            "lists the script's warnings in its lint list")
        if action is not None:
            _check_action(action)
            _check_filter_category(category)
        return CatchWarnings()

    names = {"warn": warn, "filterwarnings": filterwarnings, "simplefilter": simplefilter,
             "resetwarnings": resetwarnings, "catch_warnings": catch_warnings}
    names.update((c.__name__, c) for c in _CATEGORIES)
    return names
