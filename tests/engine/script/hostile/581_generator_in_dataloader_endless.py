# expect: limit
from torch.utils.data import DataLoader, IterableDataset
class S(IterableDataset):
    def __iter__(self):
        while True:
            yield 1
for b in DataLoader(S(), batch_size=2):
    pass
