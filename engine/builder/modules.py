"""Layers as tutorials write them: ``model = torch.nn.Sequential(...)`` and ``out = model(X)``.

The New Layer form (``LayerForm``) writes an ``nn.Linear`` or an MLP (``nn.Sequential`` of Linear
layers with an activation between them). A module call ``out = model(X)`` is checked like an op:
a dry run of a freshly built engine module of the same structure (``ModuleSpec``, recorded by
``describe``) with zero weights of the same dtype, on zeros of the operand's layout, so a shape
mismatch is refused with PyTorch's own message (``mat1 and mat2 shapes cannot be multiplied``).
Building the stand-in never draws from ``engine.creation.rng()``: a dry run must not change the
script's random stream. A module holding a Dropout is not dry-run at all (dropout is random),
nor is one the builder cannot rebuild (a class the script defines): their calls are written
unchecked, and the verdict says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..script.limits import Limits
from ..tensor import Tensor
from .check import DryTensors, Verdict, dry_run_context, error_text, verdict_of
from .edits import BuildError, CodeEdit, FieldRefused, append_statement, torch_import
from .names import form_start_errors, name_problem
from .tensor_form import parse_whole_numbers
from .workspace import ModuleSpec

KINDS = ("mlp", "linear")
KIND_LABELS = {"mlp": "MLP: torch.nn.Sequential(Linear, activation, …)",
               "linear": "one layer: torch.nn.Linear(in, out)"}
ACTIVATIONS = ("ReLU", "Tanh", "Sigmoid", "LeakyReLU", "none")
FIELDS = ("name", "kind", "sizes", "activation", "bias")  # the order reasons are reported in
NOT_CHECKED_DROPOUT = "not checked: dropout is random"
_WRAP_AT = 100  # a longer Sequential is written one layer per line
_MAX_SIZES_TEXT = 200


@dataclass
class LayerForm:
    name: str = "model"
    kind: str = "mlp"  # "mlp" | "linear"
    sizes: str = "2, 8, 1"  # the features of each layer's input, then the last one's output
    activation: str = "ReLU"  # between the Linear layers of an MLP; one of ACTIVATIONS
    bias: bool = True


def parse_sizes(text: str) -> tuple[int, ...]:
    """``"2, 8, 1"`` (or ``(2, 8, 1)``, ``[2, 8, 1]``) -> (2, 8, 1); ``FieldRefused`` otherwise."""
    if len(text.strip()) > _MAX_SIZES_TEXT:
        raise FieldRefused("too long: write a few sizes like 2, 8, 1")
    sizes = parse_whole_numbers(text, "2, 8, 1")
    if not sizes:
        raise FieldRefused("write the layer sizes, e.g. 2, 8, 1 (inputs, hidden, outputs)")
    for size in sizes:
        if size <= 0:
            raise FieldRefused(
                f"{size} is not a positive size: every layer needs at least one feature")
    return sizes


def layer_form_errors(form: LayerForm, workspace) -> dict[str, str]:
    """Field -> why the form cannot be written as it stands (empty when it can)."""
    errors = form_start_errors(form.name, workspace, "kind", form.kind, KINDS, "kind")
    if "kind" in errors:
        return errors
    if form.kind == "mlp" and form.activation not in ACTIVATIONS:
        errors["activation"] = (f"unknown activation '{form.activation}': choose one of "
                                f"{', '.join(ACTIVATIONS)}")
    try:
        sizes = parse_sizes(form.sizes)
    except FieldRefused as e:
        errors["sizes"] = str(e)
        return errors
    if form.kind == "mlp" and len(sizes) < 2:
        errors["sizes"] = (f"an MLP needs at least 2 sizes (inputs, …, outputs), not {len(sizes)}: "
                           f"e.g. 2, 8, 1")
    elif form.kind == "linear" and len(sizes) != 2:
        errors["sizes"] = (f"a Linear layer needs exactly 2 sizes (in_features, out_features), "
                           f"not {len(sizes)}: e.g. 2, 8")
    else:
        limit = Limits().max_tensor_elements
        for n_in, n_out in zip(sizes, sizes[1:]):
            if n_in * n_out > limit:
                errors["sizes"] = (f"Linear({n_in}, {n_out}) is too large: {n_in * n_out} weights "
                                   f"(the limit is {limit})")
                break
    return errors


def _linear_text(torch: str, n_in: int, n_out: int, bias: bool) -> str:
    return f"{torch}.nn.Linear({n_in}, {n_out}{'' if bias else ', bias=False'})"


def layer_expression(form: LayerForm, source: str) -> str:
    """The right-hand side: ``torch.nn.Linear(2, 8)`` or ``torch.nn.Sequential(...)``."""
    torch = torch_import(source)[0]
    sizes = parse_sizes(form.sizes)
    if form.kind == "linear":
        return _linear_text(torch, sizes[0], sizes[1], form.bias)
    layers = []
    for i, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        if i and form.activation != "none":
            layers.append(f"{torch}.nn.{form.activation}()")
        layers.append(_linear_text(torch, n_in, n_out, form.bias))
    one_line = f"{torch}.nn.Sequential({', '.join(layers)})"
    if len(form.name.strip()) + 3 + len(one_line) <= _WRAP_AT:
        return one_line
    body = "".join(f"    {layer},\n" for layer in layers)
    return f"{torch}.nn.Sequential(\n{body})"


def layer_statement(form: LayerForm, source: str) -> str:
    """``model = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.ReLU(), ...)`` or
    ``fc1 = torch.nn.Linear(2, 8)``, in the script's spelling of torch."""
    return f"{form.name.strip()} = {layer_expression(form, source)}"


def new_layer(source: str, workspace, form: LayerForm) -> CodeEdit:
    """The edit that appends the form's statement (and ``import torch`` if the script lacks it)."""
    errors = layer_form_errors(form, workspace)
    for field in FIELDS:
        if field in errors:
            raise BuildError(field, errors[field])
    _, imports = torch_import(source)
    statement = layer_statement(form, source)
    summary = statement.splitlines()[0]
    if summary.endswith("("):
        summary += "…)"
    return append_statement(source, statement, imports=imports, summary=summary)


# -- calling a module ----------------------------------------------------------------------------

def build_module(spec: ModuleSpec):
    """A fresh engine module of ``spec``'s structure with zero weights; never draws a random
    number (``nn.Linear``'s constructor would: its weights are initialised here instead)."""
    from .. import creation, nn

    if spec.kind == "Linear":
        m = _dry_linear_class().__new__(_dry_linear_class())
        nn.Module.__init__(m)
        m.in_features = spec.arg("in_features")
        m.out_features = spec.arg("out_features")
        shape = spec.arg("weight_shape") or (m.out_features, m.in_features)
        dtype = _engine_dtype(spec.arg("dtype", "float32"))
        m.weight = nn.Parameter(creation.zeros(shape, dtype=dtype))
        if spec.arg("bias", True):
            m.bias = nn.Parameter(creation.zeros(shape[0], dtype=dtype))
        else:
            m.register_parameter("bias", None)
        return m
    if spec.kind == "Sequential":
        return nn.Sequential(*(build_module(child) for child in spec.children))
    cls = getattr(nn, spec.kind, None)
    if cls is None or not isinstance(cls, type) or not issubclass(cls, nn.Module):
        raise ValueError(f"cannot rebuild a {spec.kind}")
    return cls(**dict(spec.args))


_DRY_LINEAR = None


def _dry_linear_class():
    """``nn.Linear`` that refuses an input of another dtype than its weight as PyTorch's addmm
    does, before the shapes (``mat1 and mat2 must have the same dtype, but got Double and
    Float``): the engine's ``addmm`` does not check dtypes yet (its ``matmul``, the bias-free
    path, does)."""
    global _DRY_LINEAR
    if _DRY_LINEAR is None:
        from .. import nn
        from ..dtypes import scalar_type_name

        class DryLinear(nn.Linear):
            def forward(self, input):
                if self.bias is not None and isinstance(input, Tensor) and input.ndim > 0 \
                        and input._data.dtype != self.weight._data.dtype:
                    names = [scalar_type_name(t._data.dtype)
                             for t in (input, self.weight)]
                    raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                                       f"{names[0]} and {names[1]}")
                return super().forward(input)

        _DRY_LINEAR = DryLinear
    return _DRY_LINEAR


def _engine_dtype(name: str):
    import engine

    return getattr(engine, name)


def module_call_expression(module_name: str, operand: str) -> str:
    return f"{module_name}({operand})"


_VERDICTS: dict = {}
_MAX_VERDICTS = 1024


def module_call_verdict(module_name: str, operand, workspace) -> Verdict:
    """Whether ``module_name(operand)`` runs, and its result; refusals are PyTorch's messages."""
    if module_name not in workspace.modules:
        return Verdict(False, f"no module named '{module_name}' in the script")
    if isinstance(operand, str) and not operand:
        return Verdict(False, "needs one tensor (0 selected)")
    if not isinstance(operand, str):
        return Verdict(False, f"{module_name} needs a tensor where {operand!r} is given")
    info = workspace.tensors.get(operand)
    if info is None:
        return Verdict(False, f"no tensor named '{operand}' in the script")
    spec = getattr(workspace, "module_specs", {}).get(module_name)
    if spec is None:
        kind = workspace.modules[module_name]
        return Verdict(True, f"not checked: {module_name} is a {kind}, whose forward the "
                             f"builder does not rebuild")
    if any(s.kind == "Dropout" for s in spec.walk()):
        return Verdict(True, NOT_CHECKED_DROPOUT)
    key = (spec, info.shape, info.dtype, info.requires_grad, info.is_leaf, info.strides)
    try:
        verdict = _VERDICTS.get(key)
    except TypeError:  # an unhashable constructor argument: just run it
        key, verdict = None, None
    if verdict is None:
        verdict = _dry_call(spec, operand, workspace)
        if key is not None:
            if len(_VERDICTS) >= _MAX_VERDICTS:
                _VERDICTS.clear()
            _VERDICTS[key] = verdict
    return verdict


def _dry_call(spec: ModuleSpec, operand: str, workspace) -> Verdict:
    with dry_run_context():
        try:
            module = build_module(spec)
            x = DryTensors(workspace).get(operand)
            result = module(x)
        except Exception as e:
            return Verdict(False, error_text(e))
    return verdict_of(result)


def apply_module_call(source: str, workspace, module_name: str, operand, name: str) -> CodeEdit:
    """Write ``name = module_name(operand)`` at the end of the script (``out = model(X)``)."""
    problem = name_problem(name, workspace)
    if problem:
        raise BuildError("name", problem)
    if module_name not in workspace.modules:
        raise BuildError("module", f"no module named '{module_name}' in the script")
    verdict = module_call_verdict(module_name, operand, workspace)
    if not verdict.ok:
        raise BuildError("operands", verdict.reason or "not valid here")
    return append_statement(source, f"{name} = {module_call_expression(module_name, operand)}")
