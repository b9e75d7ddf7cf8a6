"""The official PyTorch "Datasets & DataLoaders" tutorial pattern (a custom Dataset, DataLoader,
``next(iter(loader))``) with the "Optimization" tutorial's train/test loops, on synthetic data: the
program prints the same under ``import torch`` and with the engine standing in for torch."""

from __future__ import annotations

import pytest

from tests.engine.data.test_data import needs_torch_stream
from tests.engine.test_seeds import engine_as_torch, run_script

PROGRAM = '''
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, random_split

SHUFFLE = {shuffle}


class SyntheticImageDataset(Dataset):
    def __init__(self, n, transform=None, target_transform=None):
        self.n = n
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        label = idx % 3
        image = torch.sin(torch.arange(16.0).reshape(1, 4, 4) * (label + 1) + idx * 0.01)
        if self.transform:
            image = self.transform(image)
        if self.target_transform:
            label = self.target_transform(label)
        return image, label


training_data = SyntheticImageDataset(60, transform=lambda img: img * 0.5)
test_data = SyntheticImageDataset(20)
print(len(training_data), training_data[4][1], training_data[4][0].shape)

train_part, val_part = random_split(training_data, [0.8, 0.2],
                                    generator=torch.Generator().manual_seed(42))
print("split:", len(train_part), len(val_part))
if SHUFFLE:
    print("split indices:", train_part.indices[:6], val_part.indices[:6])

train_dataloader = DataLoader(training_data, batch_size=16, shuffle=SHUFFLE)
test_dataloader = DataLoader(test_data, batch_size=16, shuffle=SHUFFLE)
print(len(train_dataloader), len(test_dataloader))

train_features, train_labels = next(iter(train_dataloader))
print(f"Feature batch shape: {{train_features.size()}}")
print(f"Labels batch shape: {{train_labels.size()}}")
img = train_features[0].squeeze()
label = train_labels[0]
print(img.shape)
print(f"Label: {{label}}")
print(train_labels)
print(train_features.dtype, train_labels.dtype)

model = nn.Sequential(nn.Flatten(), nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 3))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape))
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)


def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 2 == 0:
            loss, current = loss.item(), batch * 16 + len(X)
            print(f"loss: {{loss:>.4f}}  [{{current:>5d}}/{{size:>5d}}]")


def test_loop(dataloader, model, loss_fn):
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \\n Accuracy: {{(100 * correct):>0.1f}}%, Avg loss: {{test_loss:>.4f}} \\n")


torch.manual_seed(0)
for t in range(4):
    print(f"Epoch {{t + 1}}\\n-------------------------------")
    train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loop(test_dataloader, model, loss_fn)
print("Done!")
'''


def _compare(shuffle: bool) -> str:
    pytest.importorskip("torch")
    source = PROGRAM.format(shuffle=shuffle)
    expected = run_script(source, "tutorial.py")
    with engine_as_torch():
        actual = run_script(source, "tutorial.py")
    assert "Done!" in expected
    assert actual == expected
    return expected


def test_tutorial_prints_what_torch_prints():
    _compare(False)


@needs_torch_stream
def test_tutorial_with_shuffle_prints_what_torch_prints():
    _compare(True)


def _interpret(source: str) -> str:
    from engine.script import Interpreter, ScriptError

    out: list = []
    try:
        steps = Interpreter(source, on_print=out.append).steps()
        for _ in steps:
            pass
    except ScriptError as e:
        if e.kind != "forbidden":
            raise
        pytest.skip(f"the interpreter does not allow torch.utils.data yet: {e}")
    return "".join(map(str, out))


def test_tutorial_in_the_script_interpreter():
    """Needs the interpreter to allow ``torch.utils``/``torch.utils.data``, classes deriving from
    ``Dataset``/``Sampler``, and ``__iter__`` in script classes (skips until it does)."""
    pytest.importorskip("torch")
    source = PROGRAM.format(shuffle=False)
    expected = run_script(source, "tutorial.py")
    assert _interpret(source) == expected


def test_iterable_dataset_in_the_script_interpreter():
    source = (
        "import torch\n"
        "from torch.utils.data import DataLoader, IterableDataset\n"
        "class Stream(IterableDataset):\n"
        "    def __init__(self, n):\n"
        "        self.n = n\n"
        "    def __iter__(self):\n"
        "        return iter(range(self.n))\n"
        "print(list(DataLoader(Stream(5), batch_size=2)))\n"
    )
    assert _interpret(source) == "[tensor([0, 1]), tensor([2, 3]), tensor([4])]\n"
