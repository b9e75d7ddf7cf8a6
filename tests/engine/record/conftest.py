"""The recorder's tests need real PyTorch; one thread keeps it fast on a shared machine."""

import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)  # torch's thread pool spins for milliseconds per op when cores are busy
