"""Helpers the builder's tests share: run generated code in real PyTorch, read its refusals."""

from __future__ import annotations


def run_torch(source: str) -> dict:
    """Run ``source`` (code the builder wrote) in real PyTorch; returns its namespace."""
    namespace: dict = {}
    exec(compile(source, "<generated>", "exec"), namespace)
    return namespace


def torch_error(call) -> str:
    """The message PyTorch refuses ``call()`` with (the test fails if it accepts it)."""
    try:
        call()
    except Exception as e:
        return str(e)
    raise AssertionError("torch accepted it")


def tensors_script(tensors: dict) -> str:
    """A script making ``{name: (shape, dtype, requires_grad, made_by_an_op)}``: zeros for
    integers, random floats; a tensor "made" by an op (``* 1``) is a non-leaf."""
    lines = ["import torch"]
    for name, (shape, dtype, rg, made) in tensors.items():
        maker = "zeros" if dtype.startswith("int") else "rand"
        t = f"torch.{maker}({shape!r}, dtype=torch.{dtype}, requires_grad={rg})"
        lines.append(f"{name} = {t} * 1" if made else f"{name} = {t}")
    return "\n".join(lines) + "\n"
