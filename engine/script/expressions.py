"""Evaluating expressions: one method per ``ast.expr`` class, dispatched by a dict."""

from __future__ import annotations

import ast
import builtins

from .dispatch import handler_table
from .errors import ScriptError, forbidden
from .generators import ScriptGenerator
from .guards import CONTAINERS as _CONTAINERS  # also dict views and deques
from .guards import check_expanded_size, check_format_spec, check_length, check_range_search
from .measure import measured_text
from .objects import SafeIterator, ScriptFunction, Signature
from .scopes import Activation
from .specials import checked
from .validate import COMPARE

_Attribute = ast.Attribute
_Name = ast.Name
_Constant = ast.Constant
_Starred = ast.Starred
_UNKNOWN = object()
_SEARCHES = (COMPARE[ast.In], COMPARE[ast.NotIn])
_PYTHON_BUILTINS = frozenset(dir(builtins))


class ExpressionsMixin:
    """The expression half of the tree walker (mixed into ``Interpreter``)."""

    def _eval(self, node, act):
        return self._ev[node.__class__](self, node, act)

    # -- names and constants -----------------------------------------------------------------------
    def _ev_constant(self, node, act):
        return node.value

    def _ev_name(self, node, act):
        name = node.id
        scope = act.locals
        if name in scope:
            return scope[name]
        for scope in act.enclosing:
            if name in scope:
                return scope[name]
        scope = self.globals
        if name in scope:
            return scope[name]
        scope = self._builtins
        if name in scope:
            return scope[name]
        if name in _PYTHON_BUILTINS:
            raise forbidden(f"'{name}' is not available in gradstep scripts", node)
        raise NameError(f"name '{name}' is not defined")

    # -- operators ---------------------------------------------------------------------------------
    def _ev_binop(self, node, act):
        ev = self._ev
        scope = act.locals
        left = node.left
        right = node.right
        # a local name, the commonest operand, is read without a call
        a = scope[left.id] if left.__class__ is _Name and left.id in scope else (
            ev[left.__class__](self, left, act))
        b = scope[right.id] if right.__class__ is _Name and right.id in scope else (
            ev[right.__class__](self, right, act))
        return self._binop(node.gs_op, a, b, node)

    def _ev_unaryop(self, node, act):
        value = self._eval(node.operand, act)
        return self._screen(self._native(node.gs_op, (value,), None, node), node)

    def _ev_boolop(self, node, act):
        is_and = isinstance(node.op, ast.And)
        value = None
        for sub in node.values:
            value = self._eval(sub, act)
            if self._truth(value, sub) is not is_and:
                return value
        return value

    def _ev_compare(self, node, act):
        left = self._eval(node.left, act)
        for op, right_node in zip(node.gs_ops, node.comparators):
            right = self._eval(right_node, act)
            if right.__class__ is range and op in _SEARCHES:
                checked(check_range_search, right, left, self.limits, node=node)
            if isinstance(left, _CONTAINERS) and isinstance(right, _CONTAINERS):
                check_expanded_size(left, self.limits)
                check_expanded_size(right, self.limits)
            result = self._screen(self._native(op, (left, right), None, node), node)
            if len(node.ops) == 1:
                return result
            if not self._truth(result, node):
                return result
            left = right
        return result

    def _ev_ifexp(self, node, act):
        if self._truth(self._eval(node.test, act), node.test):
            return self._eval(node.body, act)
        return self._eval(node.orelse, act)

    def _ev_namedexpr(self, node, act):
        value = self._eval(node.value, act)
        if act.name == "<comprehension>":
            # as in Python, := inside a comprehension binds in the enclosing function (or module)
            scope = act.enclosing[0] if act.enclosing else self.globals
            scope[node.target.id] = value
        else:
            self._store_name(node.target.id, value, act)
        return value

    # -- calls, attributes, subscripts -------------------------------------------------------------
    def _ev_call(self, node, act):
        fnode = node.func
        if fnode.__class__ is _Attribute:
            # ``obj.method(...)``: when the method is a plain function of obj's (engine) class,
            # call it without making the bound method (see AccessMixin._method_for)
            value = fnode.value
            ev = self._ev
            scope = act.locals
            obj = scope[value.id] if value.__class__ is _Name and value.id in scope else (
                ev[value.__class__](self, value, act))
            t = type(obj)
            methods = self._methods.get(t)
            name = fnode.attr
            fn = methods.get(name, _UNKNOWN) if methods is not None else _UNKNOWN
            if fn is _UNKNOWN:
                fn = self._method_for(t, name)
            if fn is not None and not (t.__dictoffset__ and name in obj.__dict__):
                if node.gs_simple:
                    args = []
                    for a in node.args:
                        args.append(ev[a.__class__](self, a, act))
                    return self._call_method(fn, obj, args, None, node)
                args, kwargs = self._call_arguments(node, act)
                return self._call_method(fn, obj, args, kwargs, node)
            func = self._getattr(obj, name, fnode)
        else:
            func = self._eval(fnode, act)
        if func is self._super_builtin:
            args = [self._eval(a, act) for a in node.args]
            return self._make_super(args, act, node)
        if node.gs_simple:
            ev = self._ev
            args = []
            for a in node.args:
                args.append(ev[a.__class__](self, a, act))
            return self._call(func, args, {}, node)
        args, kwargs = self._call_arguments(node, act)
        return self._call(func, args, kwargs, node)

    def _call_arguments(self, node, act):
        """The positional and keyword arguments of a call with ``*``, ``**`` or keywords."""
        args = []
        for a in node.args:
            if a.__class__ is _Starred:
                args.extend(self._screened_items(self._eval(a.value, act), a))
            else:
                args.append(self._eval(a, act))
        kwargs = {}
        for kw in node.keywords:
            value = self._eval(kw.value, act)
            if kw.arg is not None:
                kwargs[kw.arg] = value
                continue
            if not isinstance(value, dict):
                raise TypeError(f"argument after ** must be a mapping, not {type(value).__name__}")
            for key, item in value.items():
                if not isinstance(key, str):
                    raise TypeError("keywords must be strings")
                kwargs[key] = self._screen(item, kw)
        return args, kwargs

    def _ev_attribute(self, node, act):
        value = node.value
        scope = act.locals
        obj = scope[value.id] if value.__class__ is _Name and value.id in scope else (
            self._ev[value.__class__](self, value, act))
        name = node.attr
        if name[0] != "_":
            rule = self._attr_rules.get(type(obj))
            if rule is not None:
                return rule(self, obj, name, node)  # _getattr, once the class's rule is known
        return self._getattr(obj, name, node)

    def _ev_subscript(self, node, act):
        ev = self._ev
        value = node.value
        key = node.slice
        return self._getitem(ev[value.__class__](self, value, act),
                             ev[key.__class__](self, key, act), node)

    def _ev_slice(self, node, act):
        return slice(
            None if node.lower is None else self._eval(node.lower, act),
            None if node.upper is None else self._eval(node.upper, act),
            None if node.step is None else self._eval(node.step, act),
        )

    # -- displays ----------------------------------------------------------------------------------
    def _items(self, elts, act):
        out = []
        for e in elts:
            if e.__class__ is ast.Starred:
                out.extend(self._materialize(self._eval(e.value, act), e))
                check_length(len(out), self.limits.max_list)
            else:
                out.append(self._eval(e, act))
        return out

    def _ev_list(self, node, act):
        return self._items(node.elts, act)

    def _ev_tuple(self, node, act):
        return tuple(self._items(node.elts, act))

    def _ev_set(self, node, act):
        items = self._items(node.elts, act)
        for item in items:
            check_expanded_size(item, self.limits)
        try:
            return set(items)
        except Exception as e:
            raise self._runtime(e, node) from e

    def _ev_dict(self, node, act):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                value = self._eval(v, act)
                if not isinstance(value, dict):
                    raise TypeError(f"'{type(value).__name__}' object is not a mapping")
                out.update(value)
            else:
                key = self._eval(k, act)
                check_expanded_size(key, self.limits)
                try:
                    out[key] = self._eval(v, act)
                except ScriptError:
                    raise
                except Exception as e:
                    raise self._runtime(e, k) from e
            check_length(len(out), self.limits.max_list)
        return out

    # -- f-strings ---------------------------------------------------------------------------------
    def _ev_joinedstr(self, node, act):
        parts = []
        total = 0
        for value in node.values:
            if value.__class__ is ast.Constant:
                piece = value.value
            else:
                piece = self._format_value(value, act)
            total += len(piece)
            check_length(total, self.limits.max_string, "")
            parts.append(piece)
        return "".join(parts)

    def _format_value(self, node: ast.FormattedValue, act) -> str:
        value = self._eval(node.value, act)
        spec = self._eval(node.format_spec, act) if node.format_spec is not None else ""
        try:
            if node.conversion == 115:
                value = self._to_text(str, value)
            elif node.conversion == 114:
                value = self._to_text(repr, value)
            elif node.conversion == 97:
                value = self._to_text(ascii, value)
            return self._format(value, spec)
        except ScriptError as e:
            raise e.at(node)
        except Exception as e:
            raise self._runtime(e, node) from e

    def _format(self, value, spec: str) -> str:
        """``format(value, spec)`` with the size checks (used by f-strings and str.format)."""
        check_format_spec(spec, self.limits)
        return measured_text(format, value, self.limits, spec)

    def _to_text(self, convert, value) -> str:
        return measured_text(convert, value, self.limits)  # the one measured path (measure.py)

    # -- comprehensions and lambdas ----------------------------------------------------------------
    def _comprehension_scope(self, node, act):
        enclosing = act.enclosing if act.locals is self.globals else (act.locals,) + act.enclosing
        return Activation("<comprehension>", {}, enclosing, function=act.function,
                          self_arg=act.self_arg)

    def _comprehend(self, node, act, emit):
        inner = self._comprehension_scope(node, act)
        first = self._eval(node.generators[0].iter, act)
        self._comprehend_level(node.generators, 0, first, inner, emit)

    def _comprehend_level(self, generators, level, iterable, inner, emit):
        gen = generators[level]
        last = level + 1 == len(generators)
        for item in self._iterate(iterable, gen.iter):
            self._tick()
            self._assign(gen.target, item, inner)
            if gen.ifs and not all(self._truth(self._eval(c, inner), c) for c in gen.ifs):
                continue
            if last:
                emit(inner)
            else:
                nxt = generators[level + 1]
                self._comprehend_level(generators, level + 1, self._eval(nxt.iter, inner),
                                       inner, emit)

    def _ev_listcomp(self, node, act):
        out = []
        cap = self.limits.max_list

        def emit(inner):
            out.append(self._eval(node.elt, inner))
            if len(out) > cap:
                check_length(len(out), cap)

        self._comprehend(node, act, emit)
        if len(out) >= 8192:
            self._memory.check_process(node)
        return out

    def _ev_setcomp(self, node, act):
        out = set()
        cap = self.limits.max_list

        def emit(inner):
            value = self._eval(node.elt, inner)
            check_expanded_size(value, self.limits)
            out.add(value)
            if len(out) > cap:
                check_length(len(out), cap)

        self._comprehend(node, act, emit)
        return out

    def _ev_dictcomp(self, node, act):
        out = {}
        cap = self.limits.max_list

        def emit(inner):
            key = self._eval(node.key, inner)
            check_expanded_size(key, self.limits)
            out[key] = self._eval(node.value, inner)
            if len(out) > cap:
                check_length(len(out), cap)

        self._comprehend(node, act, emit)
        return out

    def _ev_generatorexp(self, node, act):
        inner = self._comprehension_scope(node, act)
        first = self._eval(node.generators[0].iter, act)
        return SafeIterator(self._lazy_comprehension(node, first, inner), self._tick,
                            _identity)

    def _lazy_comprehension(self, node, first, inner):
        generators = node.generators

        def level(i, iterable):
            gen = generators[i]
            for item in self._iterate(iterable, gen.iter):
                self._assign(gen.target, item, inner)
                if gen.ifs and not all(self._truth(self._eval(c, inner), c) for c in gen.ifs):
                    continue
                if i + 1 == len(generators):
                    yield self._eval(node.elt, inner)
                else:
                    yield from level(i + 1, self._eval(generators[i + 1].iter, inner))

        return level(0, first)

    def _ev_lambda(self, node, act):
        signature = self._signature(node.args, act)
        return ScriptFunction(self, "<lambda>", signature, None, node.body,
                              self._closure_of(act), node)

    def _signature(self, args: ast.arguments, act) -> Signature:
        defaults = tuple(self._eval(d, act) for d in args.defaults)
        kw_defaults = {
            a.arg: self._eval(d, act) for a, d in zip(args.kwonlyargs, args.kw_defaults)
            if d is not None
        }
        return Signature(args, defaults, kw_defaults)

    def _closure_of(self, act):
        if act.locals is self.globals or act.is_class:
            return act.enclosing
        return (act.locals,) + act.enclosing

    def _ev_starred(self, node, act):
        raise forbidden("a starred expression is only allowed in calls, lists and assignments",
                        node)

    def _ev_formattedvalue(self, node, act):
        return self._format_value(node, act)

    # -- generators (generators.py runs the body; validate marks the defs that yield) --------------
    def _ev_yield(self, node, act):
        value = None if node.value is None else self._eval(node.value, act)
        return act.generator._yield(value)

    def _ev_yieldfrom(self, node, act):
        gen = act.generator
        source = self._eval(node.value, act)
        if type(source) is not ScriptGenerator:
            for item in self._iterate(source, node):
                gen._yield(item)
            return None
        sent = None
        while True:  # send() goes through to the inner generator; its return is the value
            try:
                value = source.send(sent)
            except StopIteration as stop:
                return stop.value
            try:
                sent = gen._yield(value)
            except GeneratorExit:
                source.close()
                raise


def _identity(x):
    return x


EXPRESSION_HANDLERS = handler_table(ExpressionsMixin, "_ev_")
