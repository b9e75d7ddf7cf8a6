"""The op table's rows against everything made from them or spelled after them.

A row (``engine/ops/table.py``) declares its public spellings (``api``), its inspector note, its
palette group and what it saves; this file fails when any of that is missing or out of step:
a spelling that does not exist, a public function or method that records a node but has no
row, a row without a note or without a differential test (a test comparing with PyTorch that
reaches the row), saves that miss what the rules read. The checklist for a new op is in
docs/internals.md ("Adding an op").
"""

from __future__ import annotations

import contextlib
import dis
import importlib
import types
import warnings

import pytest

import engine
from engine.nn import functional as F
from engine.ops import api
from engine.ops.table import BACKWARD_OPS, NODE_OPS, OPS, notes, palette_groups, rows, spellings

ROWS = rows()
# ``nn.`` names a module or a function of ``engine.nn`` that records the row and has no
# ``torch.x`` / ``F.x`` of its own (``nn.LSTM``: MkldnnRnnLayerBackward0); dotted names are
# attribute paths (``torch.linalg.cholesky``)
PREFIXES = {"torch.": engine, "Tensor.": engine.Tensor, "F.": F, "nn.": engine.nn}

# Modules whose functions never record a node (grad modes, devices, printing options).
NON_OP_MODULES = {"engine.autograd.grad_mode", "engine.autograd.anomaly", "engine.device",
                  "engine.tensor_format", "engine.dtypes", "engine.threads"}
# Other public names that record no node (creation, the rng, comparisons to a bool...).
NOT_OPS = {
    "torch.": {
        "allclose", "arange", "as_tensor", "empty", "empty_like", "equal", "eye", "from_numpy",
        "full", "full_like", "get_default_dtype", "set_default_dtype", "get_rng_state",
        "initial_seed",
        "is_floating_point", "is_grad_enabled", "is_tensor", "isclose", "linspace", "logspace",
        "manual_seed", "normal", "numel", "ones", "ones_like", "rand", "rand_like", "randint",
        "randn", "randn_like", "randperm", "seed", "set_printoptions", "tensor", "zeros",
        "zeros_like", "multinomial", "randint_like", "set_rng_state", "broadcast_shapes",
        "positive", "detach_",
    },
    "Tensor.": {
        "__array__", "__bool__", "__deepcopy__", "__float__", "__format__", "__hash__",
        "__index__", "__init__", "__int__", "__len__", "__pos__", "__repr__", "__str__",
        "__weakref__", "allclose", "backward_steps", "cpu", "cuda", "data", "detach", "detach_",
        "device", "dim", "dtype", "element_size", "equal", "grad", "is_contiguous", "is_cuda",
        "is_floating_point", "is_leaf", "item", "ndim", "nelement", "numel", "numpy",
        "register_hook", "requires_grad", "requires_grad_", "retain_grad", "retains_grad",
        "shape", "size", "stride", "tolist", "multinomial", "is_xpu",
        "new_ones", "new_zeros", "new_empty", "new_full", "new_tensor",
    },
}

# Random ops (engine/creation.py, not this table's owner) that PyTorch records a node for but
# that have no row yet: BernoulliBackward0 (torch.bernoulli, Tensor.bernoulli), BernoulliBackward2
# (bernoulli_), NormalBackward0, UniformBackward0, ExponentialBackward0, RandomBackward2 (the
# in-place fills of a tensor that requires grad). Remove a name here when its row exists.
AWAITING_ROWS = {
    "torch.": {"bernoulli"},
    "Tensor.": {"bernoulli", "bernoulli_", "normal_", "uniform_", "exponential_", "random_"},
}




def _resolve(owner, path):
    for part in path.split("."):
        if not hasattr(owner, part):
            return None
        owner = getattr(owner, part)
    return owner


def _public_torch_names():
    return {n for n in dir(engine) if not n.startswith("_")
            and callable(getattr(engine, n))
            and not isinstance(getattr(engine, n), (type, types.ModuleType))
            and getattr(getattr(engine, n), "__module__", None) not in NON_OP_MODULES}


def _public_tensor_names():
    out = set()
    for n, v in vars(engine.Tensor).items():
        if n.startswith("_") and not n.startswith("__"):
            continue
        if isinstance(v, (types.MemberDescriptorType, str, int, float, tuple)) or v is None:
            continue
        out.add(n)
    return out


def test_row_names_are_unique_across_tables():
    names = [*OPS, *BACKWARD_OPS, *NODE_OPS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("op", ROWS, ids=lambda op: op.name)
def test_every_row_has_spellings_that_exist(op):
    assert op.api, f"row {op.name!r} declares no public spelling (api=...)"
    for s in op.api:
        prefix = next((p for p in PREFIXES if s.startswith(p)), None)
        assert prefix is not None, f"row {op.name!r}: {s!r} is not torch.x, Tensor.x, F.x or nn.x"
        assert _resolve(PREFIXES[prefix], s[len(prefix):]) is not None, \
            f"row {op.name!r}: {s} does not exist"


@pytest.mark.parametrize("op", [op for op in ROWS if op.node_name], ids=lambda op: op.name)
def test_every_node_row_has_a_note(op):
    assert op.note.strip(), f"row {op.name!r} ({op.node_name}) has no inspector note"
    assert notes()[op.node_name]


def test_every_public_function_that_records_a_node_has_a_row():
    spelled = set(spellings("torch."))
    stray = _public_torch_names() - spelled - NOT_OPS["torch."] - AWAITING_ROWS["torch."]
    assert not stray, f"engine functions with no row spelling them (api=torch.x): {sorted(stray)}"
    assert not NOT_OPS["torch."] & spelled


def test_every_tensor_method_that_records_a_node_has_a_row():
    spelled = set(spellings("Tensor."))
    stray = _public_tensor_names() - spelled - NOT_OPS["Tensor."] - AWAITING_ROWS["Tensor."]
    assert not stray, f"Tensor methods with no row spelling them (api=Tensor.x): {sorted(stray)}"
    assert not NOT_OPS["Tensor."] & spelled


@pytest.mark.parametrize("op", [op for op in ROWS if op.make], ids=lambda op: op.name)
def test_made_functions_are_the_exports_and_methods(op):
    made = api._MADE[op.name]
    for s in op.api:
        name = s.split(".", 1)[1]
        if s.startswith("torch.") and name.endswith("_"):  # ``torch.sin_(x)``: ``x.sin_()``
            assert getattr(engine, name) is getattr(api, name)
            assert getattr(engine, name).__name__ == name
        elif s.startswith("torch."):
            assert getattr(engine, name) is made is getattr(api, name)
        elif s.startswith("Tensor.") and not name.endswith("_") and name not in api._METHODS \
                and name not in api._DUNDERS:
            assert getattr(engine.Tensor, name) is made


def test_palette_groups_come_from_the_rows():
    from engine.builder.catalog import CATALOG, GROUPS

    groups = palette_groups()
    for entry in CATALOG:
        assert groups.get(entry.id) == entry.group, entry.id
    assert set(groups.values()) <= set(GROUPS)
    assert set(groups) == {entry.id for entry in CATALOG}, "a row's palette id has no entry"


# -- saves: what the rules read ----------------------------------------------------------------

_CO_VARARGS = 0x04


_SIMPLE = ("LOAD_FAST", "LOAD_DEREF", "LOAD_CONST")


def _reads(rule, depth=0) -> set:
    """The parameter names a rule reads. Parameters handed on as the first arguments of a
    module-level function (``lambda g, ans, x, dim: _helper(g, ans, x, (dim,))``) count as read
    only if that function reads them."""
    code = getattr(rule, "__code__", None)
    if code is None or depth > 3:
        return set(getattr(code, "co_varnames", ()))
    out = set()
    ins = list(dis.get_instructions(code))
    i = 0
    while i < len(ins):
        op = ins[i]
        helper = rule.__globals__.get(op.argval) if op.opname == "LOAD_GLOBAL" else None
        if isinstance(helper, types.FunctionType):
            j = i + 1
            while j < len(ins) and ins[j].opname in _SIMPLE:
                j += 1
            run = ins[i + 1:j]
            nxt = ins[j].opname if j < len(ins) else ""
            if run and not (nxt.startswith("LOAD_") and nxt not in ("LOAD_ATTR", "LOAD_METHOD")
                            or nxt in ("PRECALL", "CALL", "KW_NAMES")):
                out.add(run[-1].argval)  # the start of a larger argument (``x.T``): read
                run = run[:-1]
            used = _reads(helper, depth + 1)
            params = _positional(helper)
            for k, x in enumerate(run):
                if x.opname != "LOAD_CONST" and (k >= len(params) or params[k] in used):
                    out.add(x.argval)
            i = i + 1 + len(run)
            continue
        if op.opname.startswith(("LOAD_FAST", "LOAD_DEREF", "LOAD_CLOSURE")):
            val = op.argval
            out.update(val if isinstance(val, tuple) else (val,))
        i += 1
    return out


def _positional(rule) -> tuple:
    code = rule.__code__
    return code.co_varnames[:code.co_argcount]


# (row, rule): names the reading above finds that the rule never reads for that row
# _matmul_vjp_a/_b read the other input's ndim only for a 1-D operand: never in bmm
_NOT_READ = {("bmm", 0): {"a"}, ("bmm", 1): {"b"}}


@pytest.mark.parametrize("op", [op for op in ROWS if op.vjps], ids=lambda op: op.name)
def test_saves_cover_what_the_rules_read(op):
    """A rule gets the arrays the row saves (None for the others): an input a rule reads must be
    saved (``saves``: x, y, z for arguments 0-2, r for the result), and ``save_if`` must keep it
    for every rule that reads it."""
    n_args = len(op.vjps) if op.inputs is None else max(op.inputs) + 1  # before the params
    for k, rule in enumerate(op.vjps):
        if rule.__code__.co_flags & _CO_VARARGS:
            continue  # ``*args`` rules (variadic, not implemented) read no named input
        params = _positional(rule)
        reads = _reads(rule) - _NOT_READ.get((op.name, k), set())
        if len(params) > 1 and params[1] in reads:
            assert "r" in op.saves, f"{op.name}: rule {k} reads the result; saves lacks 'r'"
        for i, name in enumerate(params[2:2 + min(n_args, 3)]):
            if name in reads:
                assert "xyz"[i] in op.saves, f"{op.name}: rule {k} reads {name} (argument {i})"
                if op.save_users is not None and i in op.save_users:
                    assert k in op.save_users[i], f"{op.name}: save_if[{i}] leaves out rule {k}"


# -- differential tests: every row reached by a case that is compared with PyTorch ---------------

# The case tables of the differential test modules, as snippets ``snippet(torch)``.
DIFFERENTIAL_TABLES = {
    "tests.engine.ops.test_ops": lambda m: list(m.ALL.values()),
    "tests.engine.ops.test_more_ops": lambda m: list(m.ALL.values()),
    "tests.engine.ops.test_tutorial_ops": lambda m: list(m.ALL.values()),
    "tests.engine.ops.test_keywords_and_indexing": lambda m: list(m.ALL.values()),
    "tests.engine.ops.test_reductions_and_activations": lambda m: (
        [m.grads_of(f) for f in m.OPS.values()]
        + [m._second_order(f) for f in m.SECOND_ORDER.values()]),
    "tests.engine.ops.test_overloads_and_conversions": lambda m: [
        m.with_leaves(b) for b in m.CASES.values()],
    "tests.engine.ops.test_dtype_and_shape_rules": lambda m: list(m.INTEGER_CASES.values()),
    "tests.engine.nn.test_layers": lambda m: list(m.CASES.values()),
}


def _graph_names(value, seen, names):
    if isinstance(value, (tuple, list)):
        for v in value:
            _graph_names(v, seen, names)
    elif isinstance(value, dict):
        for v in value.values():
            _graph_names(v, seen, names)
    elif isinstance(value, engine.Tensor):
        stack = [value.grad_fn, value.grad.grad_fn if value.grad is not None else None]
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            names.add(node.name())
            stack.extend(fn for fn, _ in node.next_functions)


def _rows_reached() -> set:
    """The rows the differential cases run (their forward called, or their node in a result's
    graph), the cases run on the engine alone."""
    reached = set()
    names: set = set()
    originals = {}

    def counting(op, forward):
        def run(*args, **params):
            reached.add(op.name)
            return forward(*args, **params)
        return run

    for op in ROWS:
        if op.forward is not None:
            originals[op] = op.forward
            op.forward = counting(op, op.forward)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for module, cases in DIFFERENTIAL_TABLES.items():
                for snippet in cases(importlib.import_module(module)):
                    with contextlib.suppress(Exception):  # error cases are compared too
                        _graph_names(snippet(engine), set(), names)
    finally:
        for op, forward in originals.items():
            op.forward = forward
    return reached | {op.name for op in ROWS if op.node_name in names}


def test_every_row_has_a_differential_test():
    missing = [op.name for op in ROWS if op.name not in _rows_reached()]
    assert not missing, (f"rows no differential case reaches (add one to a table of "
                         f"{', '.join(DIFFERENTIAL_TABLES)}): {missing}")
