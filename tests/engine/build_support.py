"""Helpers the builder's tests share: run generated code in real PyTorch, read its refusals."""

from __future__ import annotations


def run_torch(source: str) -> dict:
    """Run ``source`` (code the builder wrote) in real PyTorch; returns its namespace."""
    namespace: dict = {}
    exec(compile(source, "<generated>", "exec"), namespace)  # noqa: S102 - the tests' own text
    return namespace


def torch_error(call) -> str:
    """The message PyTorch refuses ``call()`` with (the test fails if it accepts it)."""
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the message is what is compared
        return str(e)
    raise AssertionError("torch accepted it")
