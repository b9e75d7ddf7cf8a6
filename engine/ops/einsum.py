"""``torch.einsum``: PyTorch's own decomposition (ATen's ``einsum`` and ``sumproduct_pair`` in
``native/Linear.cpp``), so that the graph has the nodes PyTorch records (diagonals, unsqueezes,
permutes, sums, then one ``bmm`` per pair of operands between reshapes and views), contracted
left to right as PyTorch does without the optional ``opt_einsum`` package."""

from __future__ import annotations

import builtins

from . import api

_LETTERS = 26
_ELLIPSIS = 2 * _LETTERS  # the code of "..." among the labels 0..51 (A-Z, then a-z)
_NO_OPERANDS = ("einsum(): must specify the equation string and at least one operand, or at "
                "least one operand and its subscripts list")


def _code(label: str) -> int:
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + _LETTERS


def _label(code: int) -> str:
    return chr(code + ord("A")) if code < _LETTERS else chr(code - _LETTERS + ord("a"))


def einsum(*args):
    """``torch.einsum(equation, *operands)``, also with the operands as one list and in the
    sublist format ``einsum(a, [0, 1], b, [1, 2], [0, 2])``."""
    if len(args) < 2:
        raise ValueError(_NO_OPERANDS)
    if isinstance(args[0], api._T):
        equation, operands = _from_sublists(args)
    else:
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = tuple(operands[0])
            if not operands:
                raise ValueError(_NO_OPERANDS)
    return _einsum(equation, list(operands))


def _from_sublists(args):
    """The sublist format as an equation: each operand followed by its subscripts (ints in
    [0, 52)), and optionally the output's subscripts last."""
    def letters(sub):
        out = []
        for s in sub:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, int) and 0 <= s < 2 * _LETTERS:
                out.append(_label(s))
            else:
                raise ValueError(
                    "einsum(): subscript in subscript list is not within the valid range [0, 52)")
        return "".join(out)

    operands = list(args[0:len(args) - len(args) % 2:2])
    lhs = ",".join(letters(s) for s in args[1::2][:len(operands)])
    equation = lhs + ("->" + letters(args[-1]) if len(args) % 2 else "")
    return equation, operands


def _scan(text, lone_dot):
    """The characters of ``text`` but spaces, as (index, character), an ellipsis as (index,
    "..."); a '.' outside one raises ``lone_dot()``'s message."""
    i = 0
    while i < len(text):
        c = text[i]
        if c == ".":
            if not (i + 2 < len(text) and text[i + 1] == "." and text[i + 2] == "."):
                raise RuntimeError(lone_dot())
            yield i, "..."
            i += 3
            continue
        if c != " ":
            yield i, c
        i += 1


def _bad_subscript(index):
    return RuntimeError(f"einsum(): invalid subscript given at index {index} in the equation "
                        "string, subscripts must be in [a-zA-Z]")


def _parse_inputs(lhs, n):
    labels = [[] for _ in range(n)]
    cur = 0
    # the message reads ``cur`` when it is raised: late binding is the point here
    for i, c in _scan(lhs, lambda: f"einsum(): found '.' for operand {cur} that is "  # noqa: B023
                      "not part of any ellipsis"):
        if c == "...":
            if _ELLIPSIS in labels[cur]:
                raise RuntimeError(f"einsum(): found '.' for operand {cur} for which an ellipsis "
                                   "was already found")
            labels[cur].append(_ELLIPSIS)
        elif c == ",":
            cur += 1
            if cur >= n:
                raise RuntimeError(
                    "einsum(): fewer operands were provided than specified in the equation")
        elif c.isascii() and c.isalpha():
            labels[cur].append(_code(c))
        else:
            raise _bad_subscript(i)
    if cur != n - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return labels


def _einsum(equation, operands):
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' (position 1) must be str, not "
                        f"{type(equation).__name__}")
    for k, t in enumerate(operands):
        if not isinstance(t, api._T):
            raise TypeError(f"expected Tensor as element {k} in argument 1, but got "
                            f"{type(t).__name__}")
    n = len(operands)
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _parse_inputs(lhs, n)

    label_count = [0] * (2 * _LETTERS)
    ell_num_dim = 0
    for i, (t, labels) in enumerate(zip(operands, op_labels)):
        ndims = t.ndim
        nlabels = len(labels)
        has_ell = _ELLIPSIS in labels
        if has_ell:
            nlabels -= 1
            ell_num_dim = builtins.max(ell_num_dim, ndims - nlabels)
        for s in labels:
            if s != _ELLIPSIS:
                label_count[s] += 1
        if not (nlabels <= ndims if has_ell else nlabels == ndims):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({nlabels}) "
                + ("is more than the number of dimensions (" if has_ell
                   else "does not match the number of dimensions (")
                + f"{ndims}) for operand {i}" + ("" if has_ell else " and no ellipsis was given"))

    perm_index_of = [-1] * (2 * _LETTERS)
    perm = 0
    ell_index = 0
    ell_in_output = False
    if arrow < 0:
        perm = ell_num_dim  # implicit output: the ellipsis, then the labels seen once, sorted
        ell_in_output = True
        for s in range(2 * _LETTERS):
            if label_count[s] == 1:
                perm_index_of[s] = perm
                perm += 1
    else:
        rhs = equation[arrow + 2:]
        for i, c in _scan(rhs, lambda: "einsum(): found '.' for output that is not part of any "
                          "ellipsis (...)"):
            if c == "...":
                if ell_in_output:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was "
                                       "already found")
                ell_index = perm
                perm += ell_num_dim
                ell_in_output = True
            elif c.isascii() and c.isalpha():
                s = _code(c)
                if not (label_count[s] > 0 and perm_index_of[s] == -1):
                    raise RuntimeError(
                        f"einsum(): output subscript {c}" + (
                            " appears more than once in the output" if perm_index_of[s] > -1
                            else " does not appear in the equation for any input operand"))
                perm_index_of[s] = perm
                perm += 1
            else:
                raise _bad_subscript(len(lhs) + 2 + i)
    out_num_dim = perm
    if not ell_in_output:
        ell_index = perm
        perm += ell_num_dim
    for s in range(2 * _LETTERS):
        if label_count[s] > 0 and perm_index_of[s] == -1:
            perm_index_of[s] = perm
            perm += 1

    ops = _aligned(operands, op_labels, perm, perm_index_of, ell_index, ell_num_dim)
    ops, dim_counts = ops
    while len(ops) > 1:
        a, b = ops.pop(0), ops.pop(0)
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(out_num_dim, perm):
            if a.shape[d] != 1 and b.shape[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a.shape[d] != 1:
                    a_sum.append(d)
                    dim_counts[d] = 0
                elif b.shape[d] != 1:
                    b_sum.append(d)
                    dim_counts[d] = 0
        if a_sum:
            a = api.sum(a, a_sum, True)
        if b_sum:
            b = api.sum(b, b_sum, True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))
    result = ops[0]
    if perm - out_num_dim > 0:
        if n > 1:
            return api.view(result, *result.shape[:out_num_dim])
        return api.sum(result, list(range(out_num_dim, perm)))
    return result


def _aligned(operands, op_labels, perm, perm_index_of, ell_index, ell_num_dim):
    """Each operand with its repeated labels' diagonals taken, its missing labels unsqueezed and
    its dimensions permuted into the common order; and how many operands have each dimension
    with a size other than 1."""
    label_size = [1] * (2 * _LETTERS)
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm
    ops = []
    for i, t in enumerate(operands):
        op = t
        permutation = [-1] * perm
        dim = 0
        for s in op_labels[i]:
            if s == _ELLIPSIS:
                ndim = t.ndim - (len(op_labels[i]) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    size = op.shape[dim]
                    if size != 1:
                        if ell_sizes[j] != 1 and ell_sizes[j] != size:
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}"
                                f"has size {size} which does not broadcast with previously seen "
                                f"ellipsis with size {ell_sizes[j]} for the respective dimension")
                        ell_sizes[j] = size
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[perm_index_of[s]] == -1:
                size = op.shape[dim]
                if size != 1:
                    if label_size[s] != 1 and label_size[s] != size:
                        raise RuntimeError(
                            f"einsum(): subscript {_label(s)} has size {size} for operand {i} "
                            f"which does not broadcast with previously seen size {label_size[s]}")
                    label_size[s] = size
                    dim_counts[perm_index_of[s]] += 1
                permutation[perm_index_of[s]] = dim
                dim += 1
            else:
                prev = permutation[perm_index_of[s]]
                if op.shape[dim] != op.shape[prev]:
                    raise RuntimeError(
                        f"einsum(): subscript {_label(s)} is repeated for operand {i} but the "
                        f"sizes don't match, {op.shape[dim]} != {op.shape[prev]}")
                op = api.movedim(api.diagonal(op, 0, prev, dim), -1, prev)
        for k, val in enumerate(permutation):
            if val == -1:
                op = api.unsqueeze(op, dim)
                permutation[k] = dim
                dim += 1
        ops.append(api.permute(op, permutation))
    return ops, dim_counts


def _sumproduct_pair(left, right, sum_dims):
    """``(left * right).sum(sum_dims, keepdim=True)`` as PyTorch computes it: a permute and a
    reshape of each side into one bmm, its result viewed and permuted back."""
    if not sum_dims:
        return api.mul(left, right)
    ndim = left.ndim
    summed = set(sum_dims)
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(ndim):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in summed:
            if sl and sr:
                if left.shape[i] != right.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif sl:
                left = api.sum(left, i, True)
            elif sr:
                right = api.sum(right, i, True)
        elif sl and sr:
            if left.shape[i] != right.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    out_size = ([left.shape[d] for d in lro] + [left.shape[d] for d in lo] + [1] * len(sum_dims)
                + [right.shape[d] for d in ro])
    lperm = lro + lo + sum_dims + ro
    rperm = lro + sum_dims + ro + lo
    operm = [0] * len(out_size)
    for i, d in enumerate(lro + lo + sum_dims + ro):
        operm[d] = i
    left = api.reshape(api.permute(left, lperm), lro_size, lo_size, sum_size)
    right = api.reshape(api.permute(right, rperm), lro_size, sum_size, ro_size)
    result = api.bmm(left, right)
    return api.permute(api.view(result, *out_size), operm)
