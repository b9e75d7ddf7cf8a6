"""``engine.utils.data`` against ``torch.utils.data``: batches (values, dtypes, shapes), the
default collate's type rules, samplers, ``random_split``, ``len()``, errors, and shuffle orders
(those only once the engine's random stream is PyTorch's)."""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

import engine
from engine.utils.data import _random
from tests.engine.differential import assert_same, check, describe, first_line, run

Point = collections.namedtuple("Point", ["x", "y"])


class Opaque:
    """A sample type default_collate refuses."""


def _torch():
    return pytest.importorskip("torch")


def _stream_is_torchs() -> bool:
    """Whether the engine draws PyTorch's numbers: randperm, Generator, int64 random_."""
    torch = _torch()
    if not _random.exact_stream():
        return False
    try:
        torch.manual_seed(3)
        engine.manual_seed(3)
        same = torch.randperm(20).tolist() == engine.randperm(20).tolist()
        same &= (torch.empty((), dtype=torch.int64).random_().item()
                 == engine.empty((), dtype=engine.int64).random_().item())
        g, h = torch.Generator().manual_seed(5), engine.Generator().manual_seed(5)
        same &= (torch.randperm(33, generator=g).tolist()
                 == engine.randperm(33, generator=h).tolist())
        return bool(same)
    except Exception:
        return False


needs_torch_stream = pytest.mark.skipif(
    "not __import__('tests.engine.data.test_data', fromlist=['x'])._stream_is_torchs()",
    reason="the engine's random stream is not PyTorch's yet (engine.Generator, "
           "randperm(generator=), Tensor.random_ of engine/random.py): shuffle orders differ")


def batches(loader):
    return [b for b in loader]


# -- TensorDataset + DataLoader -----------------------------------------------------------------

@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("batch_size", [1, 2, 3, 4, 7, 10, 11])
def test_tensor_dataset_batches(batch_size, drop_last):
    def snippet(torch):
        x = torch.arange(30, dtype=torch.float32).reshape(10, 3)
        y = torch.arange(10) % 3
        ds = torch.utils.data.TensorDataset(x, y)
        loader = torch.utils.data.DataLoader(ds, batch_size=batch_size, drop_last=drop_last)
        return len(ds), len(loader), batches(loader), ds[4]

    check(snippet)


def test_tensor_dataset_of_tensors_that_require_grad():
    def snippet(torch):
        w = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
        loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(w), batch_size=2)
        (first,), (second,) = batches(loader)
        (first * 2).sum().backward()
        return first, second, w.grad

    check(snippet)


def test_batch_size_none_converts_without_batching():
    def snippet(torch):
        ds = [np.array([1.0, 2.0]), (np.int32(3), "s"), {"k": np.arange(3)}, 4.5]
        return batches(torch.utils.data.DataLoader(ds, batch_size=None))

    check(snippet)


def test_a_list_is_a_dataset():
    check(lambda torch: batches(torch.utils.data.DataLoader([1, 2, 3, 4, 5], batch_size=2)))


# -- default_collate ----------------------------------------------------------------------------

COLLATE_CASES = {
    "ints": lambda torch: [0, 1, 2, 3],
    "floats": lambda torch: [0.5, 1.0, -2.25],
    "bools": lambda torch: [True, False, True],
    "mixed_int_then_float": lambda torch: [1, 2.5],
    "strings": lambda torch: ["a", "b", "c"],
    "bytes": lambda torch: [b"a", b"b"],
    "tensors": lambda torch: [torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])],
    "int_tensors": lambda torch: [torch.tensor(1), torch.tensor(2)],
    "float64_tensors": lambda torch: [torch.ones(2, 2, dtype=torch.float64)] * 3,
    "tuples": lambda torch: [(torch.tensor([1.0]), 0), (torch.tensor([2.0]), 1)],
    "lists": lambda torch: [[0, 1], [2, 3]],
    "dicts": lambda torch: [{"A": 0, "B": 1.5}, {"A": 100, "B": 100.0}],
    "nested": lambda torch: [
        {"x": (torch.zeros(2), [1, 2.0]), "meta": {"id": 3, "name": "p"}},
        {"x": (torch.ones(2), [3, 4.0]), "meta": {"id": 4, "name": "q"}},
    ],
    "namedtuples": lambda torch: [Point(0, 0.5), Point(1, 1.5)],
    "numpy_float32": lambda torch: [np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32)],
    "numpy_int32": lambda torch: [np.arange(3, dtype=np.int32), np.arange(3, 6, dtype=np.int32)],
    "numpy_float64": lambda torch: [np.array(1.5), np.array(2.5)],
    "numpy_scalars_f32": lambda torch: [np.float32(1.5), np.float32(2.0)],
    "numpy_scalars_i64": lambda torch: [np.int64(1), np.int64(7)],
    "numpy_scalars_bool": lambda torch: [np.bool_(True), np.bool_(False)],
    "ordered_dict": lambda torch: [collections.OrderedDict(b=1, a=2.0)] * 2,
    "unequal_lists": lambda torch: [[1, 2], [3]],
    "unequal_tensors": lambda torch: [torch.ones(3), torch.ones(2)],
    "opaque": lambda torch: [Opaque(), Opaque()],
    "numpy_strings": lambda torch: [np.array(["a"]), np.array(["b"])],
    "none": lambda torch: [None, None],
}


@pytest.mark.parametrize("case", sorted(COLLATE_CASES))
def test_default_collate(case):
    make = COLLATE_CASES[case]
    torch = _torch()
    expected = check(lambda t: t.utils.data.default_collate(make(t)))
    got = run(engine, lambda t: t.utils.data.default_collate(make(t)))
    want = run(torch, lambda t: t.utils.data.default_collate(make(t)))
    assert type(got).__name__ == type(want).__name__, expected  # list/dict/Point/OrderedDict


def test_default_collate_dtype_rules():
    out = engine.utils.data.default_collate([(1, 2.0, True), (3, 4.0, False)])
    assert [str(t.dtype) for t in out] == ["torch.int64", "torch.float64", "torch.bool"]


@pytest.mark.parametrize("case", ["ints", "dicts", "nested", "namedtuples", "numpy_float32",
                                  "tuples", "strings"])
def test_default_convert(case):
    make = COLLATE_CASES[case]
    check(lambda t: t.utils.data.default_convert(make(t)[0]))


def test_collate_fn_map_extension_point():
    from engine.utils.data._utils.collate import collate, default_collate_fn_map

    def opaque(batch, *, collate_fn_map=None):
        return len(batch)

    assert collate([Opaque(), Opaque()], collate_fn_map={**default_collate_fn_map,
                                                         Opaque: opaque}) == 2


# -- Dataset subclasses -------------------------------------------------------------------------

def _squares(torch):
    class Squares(torch.utils.data.Dataset):
        def __init__(self, n):
            self.n = n

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            return {"x": torch.tensor([float(i), float(i * i)]), "i": i, "sq": float(i * i)}

    return Squares


@pytest.mark.parametrize("batch_size", [1, 3, 4])
def test_dataset_subclass(batch_size):
    def snippet(torch):
        ds = _squares(torch)(7)
        loader = torch.utils.data.DataLoader(ds, batch_size=batch_size)
        return len(loader), batches(loader), isinstance(ds, torch.utils.data.Dataset)

    check(snippet)


def test_iterable_dataset():
    def snippet(torch):
        class Stream(torch.utils.data.IterableDataset):
            def __init__(self, n):
                self.n = n

            def __iter__(self):
                return iter([(i, float(i) / 2) for i in range(self.n)])

            def __len__(self):
                return self.n

        out = []
        for kw in ({"batch_size": 3}, {"batch_size": 3, "drop_last": True},
                   {"batch_size": None}, {"batch_size": 8}):
            loader = torch.utils.data.DataLoader(Stream(7), **kw)
            out.append((len(loader), batches(loader)))
        chained = Stream(2) + Stream(3)
        out.append((len(chained), list(chained)))
        return out

    check(snippet)


def test_iterable_dataset_refuses_shuffle_and_samplers():
    def snippet(torch):
        class Stream(torch.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(3))

        return torch.utils.data.DataLoader(Stream(), shuffle=True)

    check(snippet)


def test_subset_and_concat():
    def snippet(torch):
        base = torch.utils.data.TensorDataset(torch.arange(10) * 10)
        sub = torch.utils.data.Subset(base, [4, 1, 7])
        cat = torch.utils.data.ConcatDataset([sub, base])
        plus = sub + sub
        return (len(sub), sub[0], sub[2], batches(torch.utils.data.DataLoader(sub, batch_size=2)),
                len(cat), cat[2], cat[3], cat[-1], cat.cumulative_sizes, len(plus), plus[4])

    check(snippet)


def test_stack_dataset():
    def snippet(torch):
        a = torch.utils.data.TensorDataset(torch.arange(4))
        b = list(range(10, 14))
        loader = torch.utils.data.DataLoader(torch.utils.data.StackDataset(a=a, b=b), batch_size=3)
        return batches(loader), torch.utils.data.StackDataset(a, b)[1]

    check(snippet)


# -- samplers -----------------------------------------------------------------------------------

def test_sampler_and_batch_sampler_options():
    def snippet(torch):
        data = torch.utils.data
        ds = data.TensorDataset(torch.arange(10))
        seq = data.SequentialSampler(ds)
        bs = data.BatchSampler(seq, 4, drop_last=False)
        out = [list(seq), list(bs), len(bs), list(data.BatchSampler(range(10), 3, True)),
               len(data.BatchSampler(range(10), 3, True))]
        loaders = [
            data.DataLoader(ds, sampler=[9, 0, 5], batch_size=2),
            data.DataLoader(ds, batch_sampler=[[1, 2], [8], [3, 4, 5]]),
            data.DataLoader(ds, batch_sampler=bs),
            data.DataLoader(ds, batch_size=3, collate_fn=lambda b: [x[0].item() for x in b]),
        ]
        out += [(len(loader), batches(loader)) for loader in loaders]
        return out

    check(snippet)


def test_shuffle_is_a_reproducible_permutation():
    ds = engine.utils.data.TensorDataset(engine.arange(23))

    def order(seed):
        engine.manual_seed(seed)
        loader = engine.utils.data.DataLoader(ds, batch_size=5, shuffle=True)
        return [int(i) for (b,) in loader for i in b]

    first = order(4)
    assert sorted(first) == list(range(23)) and first != list(range(23))
    assert order(4) == first


def test_weighted_random_sampler():
    engine.manual_seed(0)
    s = engine.utils.data.WeightedRandomSampler([0.0, 1.0, 3.0, 0.0], 200)
    drawn = list(s)
    assert len(s) == 200 and len(drawn) == 200 and set(drawn) <= {1, 2}
    assert 100 < drawn.count(2) < 190
    no_repl = list(engine.utils.data.WeightedRandomSampler([1, 5, 0, 2], 3, replacement=False))
    assert sorted(no_repl) == [0, 1, 3]


def _indices(loader):
    return [int(i) for b in loader for i in (b[0] if isinstance(b, list) else b)]


SEEDS = [0, 1, 7, 42, 2024]


@needs_torch_stream
@pytest.mark.parametrize("seed", SEEDS)
def test_shuffle_order_after_manual_seed(seed):
    def snippet(torch):
        torch.manual_seed(seed)
        ds = torch.utils.data.TensorDataset(torch.arange(37))
        loader = torch.utils.data.DataLoader(ds, batch_size=8, shuffle=True)
        epochs = [_indices(loader) for _ in range(3)]
        return epochs, torch.rand(3)  # the global stream is left where torch leaves it

    check(snippet)


@needs_torch_stream
@pytest.mark.parametrize("seed", SEEDS)
def test_shuffle_order_with_a_generator(seed):
    def snippet(torch):
        torch.manual_seed(99)
        g = torch.Generator().manual_seed(seed)
        ds = torch.utils.data.TensorDataset(torch.arange(20))
        loader = torch.utils.data.DataLoader(ds, batch_size=6, shuffle=True, generator=g,
                                             drop_last=True)
        epochs = [_indices(loader) for _ in range(3)]
        return epochs, torch.rand(2)  # the global stream is not used

    check(snippet)


@needs_torch_stream
@pytest.mark.parametrize("seed", SEEDS[:3])
def test_random_samplers_draw_torchs_indices(seed):
    def snippet(torch):
        data = torch.utils.data
        torch.manual_seed(seed)
        ds = list(range(11))
        g = torch.Generator().manual_seed(seed + 1)
        return (list(data.RandomSampler(ds, replacement=True, num_samples=70)),
                list(data.RandomSampler(ds, num_samples=25)),
                list(data.RandomSampler(ds, generator=g)),
                list(data.SubsetRandomSampler([3, 5, 8, 13, 21])),
                list(data.SubsetRandomSampler([3, 5, 8], generator=g)),
                torch.rand(2))

    check(snippet)


@needs_torch_stream
@pytest.mark.parametrize("seed", SEEDS[:3])
def test_random_split_order(seed):
    def snippet(torch):
        data = torch.utils.data
        torch.manual_seed(seed)
        default = [list(s.indices) for s in data.random_split(range(10), [3, 7])]
        g = torch.Generator().manual_seed(seed)
        given = [list(s.indices) for s in data.random_split(range(30), [0.3, 0.3, 0.4],
                                                            generator=g)]
        return default, given, torch.rand(2)

    check(snippet)


# -- random_split -------------------------------------------------------------------------------

@pytest.mark.parametrize("n, lengths", [
    (10, [3, 7]), (10, [0.3, 0.7]), (30, [0.3, 0.3, 0.4]), (5, [0.5, 0.5]),
    (11, [0.25, 0.25, 0.25, 0.25]), (7, [1.0]), (10, [0, 10]), (10, [0.0, 1.0]), (4, [0.9, 0.1]),
])
def test_random_split_lengths(n, lengths):
    def snippet(torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            parts = torch.utils.data.random_split(range(n), lengths,
                                                  generator=torch.Generator().manual_seed(0))
        every = sorted(i for p in parts for i in p)
        return ([len(p) for p in parts], every, [type(p).__name__ for p in parts],
                [str(w.message) for w in caught])

    check(snippet)


@pytest.mark.parametrize("lengths", [[3, 6], [5, 6], [0.5, 0.6], [1.5, -0.5], [0.2, 0.2]])
def test_random_split_errors(lengths):
    check(lambda torch: torch.utils.data.random_split(range(10), lengths))


# -- errors -------------------------------------------------------------------------------------

ERRORS = {
    "batch_size_0": lambda d, ds: d.DataLoader(ds, batch_size=0),
    "batch_size_negative": lambda d, ds: d.DataLoader(ds, batch_size=-2),
    "batch_size_float": lambda d, ds: d.DataLoader(ds, batch_size=2.5),
    "batch_size_bool": lambda d, ds: d.DataLoader(ds, batch_size=True),
    "drop_last_not_bool": lambda d, ds: d.DataLoader(ds, batch_size=2, drop_last=1),
    "sampler_and_shuffle": lambda d, ds: d.DataLoader(ds, sampler=[0, 1], shuffle=True),
    "batch_sampler_and_batch_size": lambda d, ds: d.DataLoader(ds, batch_size=2,
                                                               batch_sampler=[[0]]),
    "batch_sampler_and_drop_last": lambda d, ds: d.DataLoader(ds, batch_sampler=[[0]],
                                                              drop_last=True),
    "none_batch_and_drop_last": lambda d, ds: d.DataLoader(ds, batch_size=None, drop_last=True),
    "negative_workers": lambda d, ds: d.DataLoader(ds, num_workers=-1),
    "negative_timeout": lambda d, ds: d.DataLoader(ds, timeout=-1),
    "prefetch_without_workers": lambda d, ds: d.DataLoader(ds, prefetch_factor=2),
    "persistent_without_workers": lambda d, ds: d.DataLoader(ds, persistent_workers=True),
    "context_without_workers": lambda d, ds: d.DataLoader(ds, multiprocessing_context="spawn"),
    "timeout_without_workers": lambda d, ds: next(iter(d.DataLoader(ds, timeout=1))),
    "set_batch_size": lambda d, ds: setattr(d.DataLoader(ds), "batch_size", 4),
    "size_mismatch": lambda d, ds: d.TensorDataset(ds.tensors[0], ds.tensors[0][:3]),
    "num_samples_0": lambda d, ds: d.RandomSampler(ds, num_samples=0),
    "replacement_not_bool": lambda d, ds: d.RandomSampler(ds, replacement=1),
    "weighted_num_samples": lambda d, ds: d.WeightedRandomSampler([1.0, 2.0], 0),
    "weighted_2d": lambda d, ds: d.WeightedRandomSampler([[1.0], [2.0]], 2),
    "base_getitem": lambda d, ds: d.Dataset()[0],
    "base_len": lambda d, ds: len(d.Dataset()),
    "abstract_iterable": lambda d, ds: d.IterableDataset(),
    "sampler_no_len": lambda d, ds: len(d.DataLoader(ds, sampler=iter([0, 1]))),
    "concat_empty": lambda d, ds: d.ConcatDataset([]),
    "concat_negative": lambda d, ds: d.ConcatDataset([ds])[-11],
    "stack_mismatch": lambda d, ds: d.StackDataset(ds, [1, 2]),
    "stack_nothing": lambda d, ds: d.StackDataset(),
    "index_past_end": lambda d, ds: ds[10],
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    def snippet(torch):
        ds = torch.utils.data.TensorDataset(torch.arange(10.0))
        return ERRORS[case](torch.utils.data, ds)

    result = check(snippet)
    assert result["kind"] == "error", result


def test_abstract_iterable_message_names_torch_class():
    # ``Can't instantiate abstract class IterableDataset ...``: the first line, both
    torch = _torch()
    e = run(engine, lambda t: t.utils.data.IterableDataset())
    t = run(torch, lambda t: t.utils.data.IterableDataset())
    assert type(e) is type(t) is TypeError and first_line(e) == first_line(t)


# -- len, workers, names ------------------------------------------------------------------------

def test_len_of_loaders_and_samplers():
    def snippet(torch):
        data = torch.utils.data
        ds = data.TensorDataset(torch.zeros(10, 2))
        return [len(data.DataLoader(ds, batch_size=b, drop_last=d, shuffle=s))
                for b in (1, 3, 5, 12) for d in (False, True) for s in (False, True)] + [
            len(data.RandomSampler(ds)), len(data.RandomSampler(ds, True, 25)),
            len(data.SubsetRandomSampler([1, 2, 3])), len(iter(data.DataLoader(ds, batch_size=4)))]

    check(snippet)


def test_num_workers_loads_in_process_with_a_warning():
    data = engine.utils.data
    ds = data.TensorDataset(engine.arange(9))
    with pytest.warns(UserWarning, match="num_workers=2 starts no worker process"):
        loader = data.DataLoader(ds, batch_size=4, num_workers=2, persistent_workers=True,
                                 prefetch_factor=4, worker_init_fn=print)
    assert loader.num_workers == 2 and loader.prefetch_factor == 4
    plain = data.DataLoader(ds, batch_size=4)
    for _ in range(2):  # persistent: the same iterator, reset
        assert_same(describe(batches(plain)), describe(batches(loader)))
    assert data.get_worker_info() is None


def test_classes_print_as_torchs():
    def snippet(torch):
        data = torch.utils.data
        ds = data.TensorDataset(torch.zeros(3))
        objs = [data.DataLoader(ds), ds, data.SequentialSampler(ds), data.RandomSampler(ds),
                data.BatchSampler(range(3), 2, False), data.Subset(ds, [0]),
                data.ConcatDataset([ds]), iter(data.DataLoader(ds))]
        return [repr(type(o)) for o in objs] + [repr(o).split(" at ")[0] for o in objs] + [
            repr(data.Dataset), repr(data.IterableDataset), data.DataLoader.__name__]

    check(snippet)


def test_import_spellings():
    import engine.utils.data as d
    from engine.utils.data import DataLoader, Dataset, TensorDataset
    from engine.utils.data.dataloader import DataLoader as D2
    from engine.utils.data.dataset import Subset, random_split  # noqa: F401
    from engine.utils.data.sampler import RandomSampler  # noqa: F401

    assert engine.utils.data is d and DataLoader is D2 is d.DataLoader
    assert issubclass(TensorDataset, Dataset)


# -- the order of draws, on PyTorch's own stream ------------------------------------------------

def _draws(data, torch, seed):
    """Every index order the samplers produce from one seed, then where the stream is left."""
    def ident(b):  # no tensors: the indices only
        return b

    torch.manual_seed(seed)
    ds = list(range(13))
    out = []
    loader = data.DataLoader(ds, batch_size=4, shuffle=True, collate_fn=ident)
    out.append([list(loader) for _ in range(2)])
    g = torch.Generator().manual_seed(seed + 1)
    loader = data.DataLoader(ds, batch_size=5, shuffle=True, collate_fn=ident, generator=g,
                             drop_last=True)
    out.append([list(loader) for _ in range(2)])
    out.append(list(data.RandomSampler(ds, replacement=True, num_samples=70)))
    out.append(list(data.RandomSampler(ds, num_samples=26)))  # an exact multiple: one more draw
    out.append(list(data.RandomSampler(ds, num_samples=30, generator=g)))
    out.append(list(data.SubsetRandomSampler([2, 3, 5, 7, 11])))
    out.append(list(data.SubsetRandomSampler([2, 3, 5], generator=g)))
    out.append(list(data.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 9)))
    out.append(list(data.WeightedRandomSampler([0.9, 0.4, 0.05, 0.2], 3, False, generator=g)))
    out.append([s.indices for s in data.random_split(ds, [0.5, 0.5])])
    out.append([s.indices for s in data.random_split(ds, [3, 10], generator=g)])
    out.append(torch.rand(3).tolist() + torch.rand(2, generator=g).tolist())
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_draw_order_is_torchs_on_torchs_stream(seed, monkeypatch):
    """Run the engine's samplers on real torch's random functions: the same calls in the same
    order give exactly torch's indices (this holds for the engine once its stream is torch's)."""
    torch = _torch()
    from engine.utils.data import sampler

    expected = _draws(torch.utils.data, torch, seed)
    monkeypatch.setattr(_random, "engine", torch)
    monkeypatch.setattr(sampler, "engine", torch)
    monkeypatch.setattr(_random, "_accepts", {})
    assert _random.exact_stream()
    assert _draws(engine.utils.data, torch, seed) == expected
