"""The ops the palette offers, grouped as PyTorch's documentation groups them.

Each row says how a PyTorch user spells the op (``template``, over ``{a}``, ``{b}``, ``{torch}``,
``{F}`` and the params) and how to run the same call on engine tensors (``run``, used by the dry
run in ``check.py``: the op is called, never ``eval``'d from text). Params render as
``{name}`` (the value as Python source; a shape as ``2, 3``), ``{kw}`` (the optional params that
were given, ``dim=0, keepdim=True``) and ``{_kw}`` (the same after a comma, or nothing).
Only ops the engine implements are listed; catalog order is display order. An entry's group is
its row's in the op table (``engine/ops/table.py``: ``group=``), found by the entry's id.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import engine as _torch
from engine.nn import functional as _F
from engine.ops.table import palette_groups

_GROUP_OF = palette_groups()

GROUPS = ("Arithmetic", "Pointwise", "Reductions", "Matrix", "Shape", "Activations", "Losses")

PARAM_KINDS = ("int", "float", "dims", "shape", "bool", "choice")


@dataclass(frozen=True)
class Param:
    """One parameter of an op. ``optional`` ones are left out of the code when not given."""

    name: str
    kind: str  # one of PARAM_KINDS
    default: Any = None
    optional: bool = False
    choices: tuple = ()
    label: str = ""
    help: str = ""


@dataclass(frozen=True)
class OpSpec:
    id: str
    title: str
    group: str
    arity: int  # tensor operands: 1 or 2
    scalar_ok: bool  # a Python number may stand for an operand (at least one stays a tensor)
    template: str
    stem: str  # the suggested name of the result
    params: tuple = ()
    keywords: tuple = ()
    doc: str = ""
    run: Callable | None = None  # run(a, b, **params) on engine tensors (b None when arity 1)

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


def _dim(optional=False, default=None, help="the dimension to reduce") -> Param:
    return Param("dim", "int", default, optional, (), "dim", help)


_KEEPDIM = Param("keepdim", "bool", False, True, (), "keepdim",
                 "keep the reduced dimension as size 1")
_REDUCTION = Param("reduction", "choice", "mean", True, ("mean", "sum", "none"), "reduction",
                   "how the per-element losses combine")
_DIAGONAL = Param("diagonal", "int", 0, True, (), "diagonal",
                  "which diagonal to keep from (0: the main one, > 0 above it)")


def _binary(id, title, symbol, fn, keywords, doc):
    return OpSpec(id, title, _GROUP_OF[id], 2, True, f"{{a}} {symbol} {{b}}", "y",
                  keywords=keywords, doc=doc, run=lambda a, b: fn(a, b))


def _pointwise(id, doc, keywords=(), stem="y"):
    fn = getattr(_torch, id)
    return OpSpec(id, id, _GROUP_OF[id], 1, False, f"{{torch}}.{id}({{a}})", stem,
                  keywords=keywords, doc=doc, run=lambda a, b: fn(a))


def _reduction(id, stem, doc, keywords=()):
    return OpSpec(id, id, _GROUP_OF[id], 1, False, f"{{a}}.{id}({{kw}})", stem,
                  params=(_dim(optional=True), _KEEPDIM), keywords=keywords, doc=doc,
                  run=lambda a, b, **p: getattr(a, id)(**p))


def _loss(id, doc, keywords=()):
    fn = getattr(_F, id)
    return OpSpec(id, f"F.{id}", _GROUP_OF[id], 2, False, f"{{F}}.{id}({{a}}, {{b}}{{_kw}})",
                  "loss", params=(_REDUCTION,), keywords=("loss",) + keywords, doc=doc,
                  run=lambda a, b, **p: fn(a, b, **p))


CATALOG: tuple[OpSpec, ...] = (
    # -- Arithmetic ---------------------------------------------------------------------------
    _binary("add", "add  a + b", "+", operator.add, ("plus", "sum", "+"),
            "Elementwise sum, broadcasting."),
    _binary("sub", "subtract  a - b", "-", operator.sub, ("minus", "difference", "-"),
            "Elementwise difference, broadcasting."),
    _binary("mul", "multiply  a * b", "*", operator.mul, ("times", "product", "hadamard", "*"),
            "Elementwise product, broadcasting (not a matrix product: see matmul)."),
    _binary("div", "divide  a / b", "/", operator.truediv, ("divide", "quotient", "/"),
            "Elementwise true division; integers give a float result."),
    _binary("pow", "power  a ** b", "**", operator.pow, ("power", "exponent", "**", "square"),
            "Elementwise power."),
    OpSpec("neg", "negate  -a", _GROUP_OF["neg"], 1, False, "-{a}", "y",
           keywords=("negative", "minus"),
           doc="Elementwise negation.", run=lambda a, b: -a),
    # -- Pointwise ----------------------------------------------------------------------------
    _pointwise("exp", "e to the power of each element.", ("exponential",)),
    _pointwise("log", "Natural logarithm of each element.", ("ln", "logarithm")),
    _pointwise("sqrt", "Square root of each element.", ("root",)),
    _pointwise("abs", "Absolute value of each element.", ("absolute", "magnitude")),
    _pointwise("sin", "Sine of each element.", ("trigonometric",)),
    _pointwise("cos", "Cosine of each element.", ("trigonometric",)),
    _pointwise("reciprocal", "1 / each element.", ("inverse", "1/x")),
    _pointwise("square", "Each element squared.", ("power", "**2")),
    _pointwise("log1p", "log(1 + x) of each element, accurate for small x.", ("logarithm",)),
    _pointwise("expm1", "exp(x) - 1 of each element, accurate for small x.", ("exponential",)),
    _pointwise("log10", "Base-10 logarithm of each element.", ("logarithm",)),
    _pointwise("log2", "Base-2 logarithm of each element.", ("logarithm", "bits")),
    _pointwise("asin", "Arcsine of each element (inputs in [-1, 1]).", ("arcsin", "trigonometric")),
    _pointwise("acos", "Arccosine of each element (inputs in [-1, 1]).",
               ("arccos", "trigonometric")),
    _pointwise("atan", "Arctangent of each element.", ("arctan", "trigonometric")),
    _pointwise("sinh", "Hyperbolic sine of each element.", ("hyperbolic",)),
    _pointwise("cosh", "Hyperbolic cosine of each element.", ("hyperbolic",)),
    OpSpec("clamp", "clamp", _GROUP_OF["clamp"], 1, False, "{torch}.clamp({a}{_kw})", "y",
           params=(Param("min", "float", None, True, (), "min", "lower bound"),
                   Param("max", "float", None, True, (), "max", "upper bound")),
           keywords=("clip", "bound", "limit"), doc="Limit each element to [min, max].",
           run=lambda a, b, **p: _torch.clamp(a, **p)),
    # -- Reductions ---------------------------------------------------------------------------
    _reduction("sum", "s", "Sum of all elements, or along dim.", ("total", "add up")),
    _reduction("mean", "m", "Mean of all elements, or along dim (floating tensors only).",
               ("average", "avg")),
    _reduction("prod", "pr", "Product of all elements, or along dim.", ("product", "multiply all")),
    _reduction("var", "v", "Variance (unbiased: divides by n - 1), of all elements or along dim.",
               ("variance", "spread")),
    _reduction("std", "sd", "Standard deviation (unbiased), of all elements or along dim.",
               ("standard deviation", "spread")),
    OpSpec("cumsum", "cumsum", _GROUP_OF["cumsum"], 1, False, "{a}.cumsum(dim={dim})", "cs",
           params=(_dim(default=0, help="the dimension to accumulate along"),),
           keywords=("cumulative sum", "running total", "prefix sum"),
           doc="Running sums along dim (same shape as the input).",
           run=lambda a, b, dim: a.cumsum(dim=dim)),
    OpSpec("max", "max", _GROUP_OF["max"], 1, False, "{a}.max()", "mx",
           keywords=("maximum", "largest"),
           doc="The largest element.", run=lambda a, b: a.max()),
    OpSpec("min", "min", _GROUP_OF["min"], 1, False, "{a}.min()", "mn",
           keywords=("minimum", "smallest"),
           doc="The smallest element.", run=lambda a, b: a.min()),
    OpSpec("norm", "norm", _GROUP_OF["norm"], 1, False, "{a}.norm()", "n",
           keywords=("length", "l2", "magnitude"),
           doc="The 2-norm of all elements.", run=lambda a, b: a.norm()),
    # -- Matrix -------------------------------------------------------------------------------
    OpSpec("matmul", "matmul  a @ b", _GROUP_OF["matmul"], 2, False, "{a} @ {b}", "h",
           keywords=("matrix multiply", "product", "@", "dot"),
           doc="Matrix product with broadcasting of batch dimensions.", run=lambda a, b: a @ b),
    OpSpec("mm", "mm", _GROUP_OF["mm"], 2, False, "{torch}.mm({a}, {b})", "h",
           keywords=("matrix multiply",),
           doc="Product of two 2-D matrices.", run=lambda a, b: _torch.mm(a, b)),
    OpSpec("mv", "mv", _GROUP_OF["mv"], 2, False, "{torch}.mv({a}, {b})", "h",
           keywords=("matrix vector",),
           doc="Product of a 2-D matrix and a 1-D vector.", run=lambda a, b: _torch.mv(a, b)),
    OpSpec("dot", "dot", _GROUP_OF["dot"], 2, False, "{torch}.dot({a}, {b})", "d",
           keywords=("inner product",),
           doc="Inner product of two 1-D vectors.", run=lambda a, b: _torch.dot(a, b)),
    OpSpec("t", "transpose  a.t()", _GROUP_OF["t"], 1, False, "{a}.t()", "at",
           keywords=("transpose",),
           doc="Transpose of a tensor of at most 2 dimensions.", run=lambda a, b: a.t()),
    OpSpec("tril", "tril", _GROUP_OF["tril"], 1, False, "{torch}.tril({a}{_kw})", "lo",
           params=(_DIAGONAL,),
           keywords=("lower triangle", "mask"),
           doc="The lower triangle of a matrix (the rest zeroed).",
           run=lambda a, b, **p: _torch.tril(a, **p)),
    OpSpec("triu", "triu", _GROUP_OF["triu"], 1, False, "{torch}.triu({a}{_kw})", "up",
           params=(_DIAGONAL,),
           keywords=("upper triangle", "mask"),
           doc="The upper triangle of a matrix (the rest zeroed).",
           run=lambda a, b, **p: _torch.triu(a, **p)),
    OpSpec("trace", "trace", _GROUP_OF["trace"], 1, False, "{torch}.trace({a})", "tr",
           keywords=("diagonal sum",), doc="The sum of a matrix's diagonal.",
           run=lambda a, b: _torch.trace(a)),
    # -- Shape --------------------------------------------------------------------------------
    OpSpec("flip", "flip", _GROUP_OF["flip"], 1, False, "{a}.flip({dims})", "fl",
           params=(Param("dims", "dims", (0,), False, (), "dims", "the dimensions to reverse"),),
           keywords=("reverse", "mirror"), doc="The elements in reverse order along dims.",
           run=lambda a, b, dims: a.flip(dims)),
    OpSpec("repeat", "repeat", _GROUP_OF["repeat"], 1, False, "{a}.repeat({shape})", "rp",
           params=(Param("shape", "shape", (2,), False, (), "repeats",
                         "how many copies along each dimension"),),
           keywords=("tile", "copy", "replicate"), doc="The tensor copied along each dimension.",
           run=lambda a, b, shape: a.repeat(*shape)),
    OpSpec("reshape", "reshape", _GROUP_OF["reshape"], 1, False, "{a}.reshape({shape})", "r",
           params=(Param("shape", "shape", (-1,), False, (), "shape",
                         "the new shape; -1 is inferred"),),
           keywords=("resize",), doc="Same elements in a new shape (copies when it must).",
           run=lambda a, b, shape: a.reshape(*shape)),
    OpSpec("view", "view", _GROUP_OF["view"], 1, False, "{a}.view({shape})", "v",
           params=(Param("shape", "shape", (-1,), False, (), "shape",
                         "the new shape; -1 is inferred"),),
           keywords=("resize",), doc="Same memory seen in a new shape (never copies).",
           run=lambda a, b, shape: a.view(*shape)),
    OpSpec("transpose", "transpose", _GROUP_OF["transpose"], 1, False,
           "{a}.transpose({dim0}, {dim1})", "at",
           params=(Param("dim0", "int", 0, False, (), "dim0", "first dimension to swap"),
                   Param("dim1", "int", 1, False, (), "dim1", "second dimension to swap")),
           keywords=("swap", "swapaxes"), doc="Swap two dimensions.",
           run=lambda a, b, dim0, dim1: a.transpose(dim0, dim1)),
    OpSpec("permute", "permute", _GROUP_OF["permute"], 1, False, "{a}.permute({dims})", "pm",
           params=(Param("dims", "dims", None, False, (), "dims",
                         "the new order of the dimensions"),),
           keywords=("reorder", "axes"), doc="Reorder the dimensions.",
           run=lambda a, b, dims: a.permute(*dims)),
    OpSpec("squeeze", "squeeze", _GROUP_OF["squeeze"], 1, False, "{a}.squeeze({kw})", "sq",
           params=(_dim(optional=True, help="the size-1 dimension to drop (all when not given)"),),
           keywords=("drop dimension",), doc="Drop dimensions of size 1.",
           run=lambda a, b, **p: a.squeeze(**p)),
    OpSpec("unsqueeze", "unsqueeze", _GROUP_OF["unsqueeze"], 1, False, "{a}.unsqueeze({dim})", "u",
           params=(_dim(default=0, help="where the new size-1 dimension goes"),),
           keywords=("add dimension", "expand dims"), doc="Insert a dimension of size 1.",
           run=lambda a, b, dim: a.unsqueeze(dim)),
    OpSpec("flatten", "flatten", _GROUP_OF["flatten"], 1, False, "{a}.flatten()", "fl",
           keywords=("ravel",),
           doc="All elements in one dimension.", run=lambda a, b: a.flatten()),
    OpSpec("cat", "cat", _GROUP_OF["cat"], 2, False, "{torch}.cat([{a}, {b}], dim={dim})", "c",
           params=(_dim(default=0, help="the dimension to join along"),),
           keywords=("concatenate", "join", "append"),
           doc="Join two tensors along an existing dimension.",
           run=lambda a, b, dim: _torch.cat([a, b], dim=dim)),
    OpSpec("stack", "stack", _GROUP_OF["stack"], 2, False,
           "{torch}.stack([{a}, {b}], dim={dim})", "st",
           params=(_dim(default=0, help="where the new dimension goes"),),
           keywords=("join",), doc="Join two same-shaped tensors along a new dimension.",
           run=lambda a, b, dim: _torch.stack([a, b], dim=dim)),
    OpSpec("clone", "clone", _GROUP_OF["clone"], 1, False, "{a}.clone()", "c", keywords=("copy",),
           doc="A copy that stays in the graph.", run=lambda a, b: a.clone()),
    # -- Activations --------------------------------------------------------------------------
    OpSpec("relu", "F.relu", _GROUP_OF["relu"], 1, False, "{F}.relu({a})", "h",
           keywords=("rectifier",),
           doc="max(0, x) elementwise.", run=lambda a, b: _F.relu(a)),
    OpSpec("sigmoid", "sigmoid", _GROUP_OF["sigmoid"], 1, False, "{torch}.sigmoid({a})", "p",
           keywords=("logistic",), doc="1 / (1 + exp(-x)) elementwise.",
           run=lambda a, b: _torch.sigmoid(a)),
    OpSpec("tanh", "tanh", _GROUP_OF["tanh"], 1, False, "{torch}.tanh({a})", "h",
           keywords=("hyperbolic",),
           doc="Hyperbolic tangent elementwise.", run=lambda a, b: _torch.tanh(a)),
    OpSpec("softmax", "F.softmax", _GROUP_OF["softmax"], 1, False,
           "{F}.softmax({a}, dim={dim})", "p",
           params=(_dim(default=-1, help="the dimension that sums to 1"),),
           keywords=("probabilities",),
           doc="exp(x) / sum(exp(x)) along dim.", run=lambda a, b, dim: _F.softmax(a, dim=dim)),
    OpSpec("log_softmax", "F.log_softmax", _GROUP_OF["log_softmax"], 1, False,
           "{F}.log_softmax({a}, dim={dim})",
           "logp", params=(_dim(default=-1, help="the dimension to normalise"),),
           keywords=("log probabilities",), doc="log(softmax(x)) along dim, computed stably.",
           run=lambda a, b, dim: _F.log_softmax(a, dim=dim)),
    OpSpec("leaky_relu", "F.leaky_relu", _GROUP_OF["leaky_relu"], 1, False,
           "{F}.leaky_relu({a}{_kw})", "h",
           params=(Param("negative_slope", "float", 0.01, True, (), "negative_slope",
                         "the slope for x < 0"),),
           keywords=("rectifier", "leaky"), doc="x for x > 0, negative_slope * x otherwise.",
           run=lambda a, b, **p: _F.leaky_relu(a, **p)),
    OpSpec("gelu", "F.gelu", _GROUP_OF["gelu"], 1, False, "{F}.gelu({a})", "h",
           keywords=("gaussian error",), doc="x * Φ(x): the activation of transformers.",
           run=lambda a, b: _F.gelu(a)),
    OpSpec("silu", "F.silu", _GROUP_OF["silu"], 1, False, "{F}.silu({a})", "h",
           keywords=("swish",), doc="x * sigmoid(x) elementwise.", run=lambda a, b: _F.silu(a)),
    OpSpec("elu", "F.elu", _GROUP_OF["elu"], 1, False, "{F}.elu({a})", "h",
           keywords=("exponential linear",), doc="x for x > 0, exp(x) - 1 otherwise.",
           run=lambda a, b: _F.elu(a)),
    OpSpec("softplus", "F.softplus", _GROUP_OF["softplus"], 1, False, "{F}.softplus({a})", "h",
           keywords=("smooth relu",), doc="log(1 + exp(x)): a smooth ReLU.",
           run=lambda a, b: _F.softplus(a)),
    # -- Losses -------------------------------------------------------------------------------
    _loss("mse_loss", "Mean squared error between input a and target b.", ("squared error", "l2")),
    _loss("l1_loss", "Mean absolute error between input a and target b.", ("absolute error",)),
    _loss("cross_entropy",
          "Cross entropy of logits a (N, C) against class indices or probabilities b.",
          ("classification", "softmax")),
    _loss("smooth_l1_loss", "Squared error below beta (1), absolute error above, a against b.",
          ("huber", "smooth l1")),
    _loss("huber_loss", "Squared error below delta (1), delta-scaled absolute error above.",
          ("huber", "robust")),
    _loss("nll_loss", "Negative log likelihood of log-probabilities a against class indices b.",
          ("negative log likelihood",)),
    _loss("binary_cross_entropy",
          "Binary cross entropy of probabilities a against targets b in [0, 1].",
          ("bce",)),
    _loss("binary_cross_entropy_with_logits", "Binary cross entropy of logits a against targets b.",
          ("bce", "logits")),
)

BY_ID: dict[str, OpSpec] = {op.id: op for op in CATALOG}


def search(query: str) -> list[OpSpec]:
    """The ops whose title, id, keywords or group contain every word of ``query``, in catalog
    order."""
    words = query.lower().split()
    if not words:
        return list(CATALOG)
    found = []
    for op in CATALOG:
        haystack = " ".join((op.title, op.id, op.group, *op.keywords)).lower()
        if all(w in haystack for w in words):
            found.append(op)
    return found


def best_matches(query: str) -> list[OpSpec]:
    """``search(query)``, best first: the op called ``query`` (typing "sum" means ``a.sum()``,
    not ``a + b``, whose keywords say "sum"), then ops whose name starts with it, then ops
    whose title has a word starting with it, then the rest, each in catalog order."""
    text = query.strip().lower()
    first = text.split()[0] if text else ""

    def rank(op: OpSpec) -> int:
        if op.id == text:
            return 0
        if op.id.startswith(first):
            return 1
        if any(word.startswith(first) for word in op.title.lower().replace(".", " ").split()):
            return 2
        return 3

    return sorted(search(query), key=rank)  # sorted() is stable: catalog order within a rank
