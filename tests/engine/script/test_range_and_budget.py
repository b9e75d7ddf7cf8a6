"""Ranges cost what they cost in Python: O(1) reads of a huge range run, what would walk it is
measured first, and the limit a refused call hits is the one its message names."""

from __future__ import annotations

import pytest

from engine.script import Interpreter, Limits, ScriptError, run
from tests.engine.script.script_diff import check_script

SMALL = Limits(max_statements=100_000, max_list=10_000)


def test_constant_time_reads_of_a_huge_range_are_pythons():
    check_script("""
r = range(3, 10**7, 2)
print(len(r), bool(r), hash(r) == hash(range(3, 10**7, 2)), isinstance(r, range))
print(r[5], r[-1], 7 in r, 8 in r, 10**6 + 1 not in r, r[::3][4], r[10:20])
print(r.start, r.stop, r.step, r.count(9), r.index(9), r == range(3, 10**7, 2))
print(max(r), min(r), max(range(10**7, 0, -3)), min(range(10**7, 0, -3)), r)
print(sum(range(10**6)), sum(range(1000), 0.5), sum(range(10), start=3))
""")


def test_len_of_a_range_past_the_list_limit():
    assert run("n = len(range(10**7))")["n"] == 10**7


def test_sum_of_a_range_names_the_statement_budget():
    with pytest.raises(ScriptError) as err:
        Interpreter("x = 1\ntotal = sum(range(10**12))\n", limits=SMALL).run()
    e = err.value
    assert (e.kind, e.line) == ("limit", 2)
    assert "1000000000000 items" in e.message and "list" not in e.message
    assert "max_statements" in e.message and "settings.limits" in e.message


def test_sum_takes_one_step_per_item():
    # 99_000 items and a few statements fit in 100_000 steps; 101_000 do not
    assert Interpreter("t = sum(range(99_000))", limits=SMALL).run()["t"] == sum(range(99_000))
    for source in ("t = sum(range(101_000))", "t = sum(x for x in range(101_000))"):
        with pytest.raises(ScriptError) as err:
            Interpreter(source, limits=SMALL).run()
        assert err.value.kind == "limit" and "max_statements" in err.value.message


def test_a_generator_summed_past_the_list_limit_is_not_a_list():
    t = Interpreter("t = sum(x for x in range(40_000))", limits=SMALL).run()["t"]
    assert t == sum(range(40_000))


@pytest.mark.parametrize("source", ["f = 0.5 in range(10**9)", "f = range(10**9).count(2.5)",
                                    "f = range(10**9).index(1.5)"])
def test_searching_a_huge_range_for_a_non_int_is_refused_before_c_walks_it(source):
    with pytest.raises(ScriptError) as err:
        Interpreter(source, limits=SMALL).run()
    assert err.value.kind == "limit" and "max_list" in err.value.message


def test_a_small_range_is_searched_as_python_does():
    check_script("print(0.5 in range(10), 3.0 in range(10), range(10).count(3.0))")


def test_a_call_that_walks_a_huge_range_names_itself_and_the_limit():
    with pytest.raises(ScriptError) as err:
        Interpreter("import torch\nt = torch.tensor(range(10**6))", limits=SMALL).run()
    assert err.value.line == 2
    assert "tensor() of a range of 1000000 items" in err.value.message
    assert "max_list" in err.value.message


def test_the_statement_limit_says_where_it_is_set():
    with pytest.raises(ScriptError) as err:
        Interpreter("while True:\n    pass\n", limits=SMALL).run()
    assert "max_statements" in err.value.message and "settings.limits" in err.value.message
