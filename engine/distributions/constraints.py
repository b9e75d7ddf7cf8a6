"""``torch.distributions.constraints``: what a parameter or a sample must satisfy, as PyTorch's
objects (the same names, ``check`` results and reprs, which the validation errors print).
After torch/distributions/constraints.py."""

from __future__ import annotations

__all__ = [
    "Constraint", "boolean", "cat", "dependent", "dependent_property", "greater_than",
    "greater_than_eq", "half_open_interval", "independent", "integer_interval", "interval",
    "is_dependent", "less_than", "lower_cholesky", "lower_triangular", "multinomial",
    "nonnegative", "nonnegative_integer", "one_hot", "positive", "positive_definite",
    "positive_integer", "real", "real_vector", "simplex", "square", "stack", "symmetric",
    "unit_interval",
]


class Constraint:
    """A region over which a variable is valid; ``check(value)`` is a bool tensor of the batch
    shape (the event dimensions, ``event_dim`` of them, reduced)."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.__class__.__name__[1:] + "()"


class _Dependent(Constraint):
    """A constraint that depends on other variables: it cannot be checked."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented) -> None:
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self) -> bool:
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self) -> int:
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint) -> bool:
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """``@constraints.dependent_property``: a property on the class that is a dependent
    constraint there (``Uniform.support``) and the computed constraint on an instance."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        super().__init__(fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """``base_constraint`` with its rightmost ``reinterpreted_batch_ndims`` dims as event."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims) -> None:
        if not isinstance(base_constraint, Constraint):
            raise AssertionError("base_constraint must be a Constraint, got "
                                 f"{type(base_constraint).__name__}")
        if not isinstance(reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise AssertionError("reinterpreted_batch_ndims must be an int >= 0, got "
                                 f"{reinterpreted_batch_ndims!r}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def is_discrete(self) -> bool:
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        result = result.reshape(
            tuple(result.shape[: result.dim() - self.reinterpreted_batch_ndims]) + (-1,))
        return result.all(-1)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__[1:]}({self.base_constraint!r}, "
                f"{self.reinterpreted_batch_ndims})")


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        is_boolean = (value == 0) | (value == 1)
        is_normalized = value.sum(-1).eq(1)
        return is_boolean.all(-1) & is_normalized


class _Bounds(Constraint):
    """A constraint with bounds (``_fields``, given by position or name), shown as
    ``Name(lower_bound=..., upper_bound=...)``."""

    _fields: tuple = ()

    def __init__(self, *bounds, **named) -> None:
        values = dict(zip(self._fields, bounds)) | named
        for name in self._fields:
            setattr(self, name, values[name])
        super().__init__()

    def __repr__(self) -> str:
        args = ", ".join(f"{f}={getattr(self, f)}" for f in self._fields)
        return f"{self.__class__.__name__[1:]}({args})"


class _IntegerInterval(_Bounds):
    is_discrete = True
    _fields = ("lower_bound", "upper_bound")

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)


class _IntegerGreaterThan(_Bounds):
    is_discrete = True
    _fields = ("lower_bound",)

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)


class _Real(Constraint):
    def check(self, value):
        return value == value  # False for NaNs


class _GreaterThan(_Bounds):
    _fields = ("lower_bound",)

    def check(self, value):
        return self.lower_bound < value


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return self.lower_bound <= value


class _LessThan(_Bounds):
    _fields = ("upper_bound",)

    def check(self, value):
        return value < self.upper_bound


class _Interval(_Bounds):
    _fields = ("lower_bound", "upper_bound")

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound) -> None:
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(-1) & (x.sum(-1) <= self.upper_bound)


def _tril_equal(value):
    return (value.tril() == value).reshape(tuple(value.shape[:-2]) + (-1,)).all(-1)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return _tril_equal(value)


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        from ..tensor import Tensor

        diag = Tensor._wrap(value._data.diagonal(axis1=-2, axis2=-1) > 0)
        return _tril_equal(value) & diag.all(-1)


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        from .. import creation
        from ..dtypes import bool as _bool

        return creation.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1],
                             dtype=_bool)


class _Symmetric(_Square):
    def check(self, value):
        import numpy as np

        from ..tensor import Tensor

        square = super().check(value)
        if not square.all():
            return square
        v = value._data
        return Tensor._wrap(np.isclose(v, np.swapaxes(v, -1, -2), atol=1e-6).all(-2).all(-1))


class _PositiveDefinite(_Symmetric):
    def check(self, value):
        import numpy as np

        from ..tensor import Tensor

        sym = super().check(value)
        if not sym.all():
            return sym
        v = value._data.astype(np.float64)
        flat = v.reshape((-1,) + v.shape[-2:])
        ok = []
        for m in flat:
            try:
                np.linalg.cholesky(m)
                ok.append(True)
            except np.linalg.LinAlgError:
                ok.append(False)
        return Tensor._wrap(np.array(ok, dtype=bool).reshape(v.shape[:-2]))


class _Cat(Constraint):
    def __init__(self, cseq, dim=0, lengths=None) -> None:
        self.cseq = list(cseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.cseq)
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self) -> bool:
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        from ..ops import api

        checks, start = [], 0
        for constr, length in zip(self.cseq, self.lengths):
            checks.append(constr.check(value.narrow(self.dim, start, length)))
            start = start + length
        return api.cat(checks, self.dim)


class _Stack(_Cat):
    def __init__(self, cseq, dim=0) -> None:
        super().__init__(cseq, dim)

    @property
    def event_dim(self) -> int:
        dim = max(c.event_dim for c in self.cseq)
        return dim + 1 if self.dim + dim < 0 else dim

    def check(self, value):
        from ..ops import api

        vs = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return api.stack([c.check(v) for v, c in zip(vs, self.cseq)], self.dim)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
square = _Square()
symmetric = _Symmetric()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
