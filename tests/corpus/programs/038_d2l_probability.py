"""Dive into Deep Learning, 2.6 Probability and Statistics -- tossing coins and dice.

Source: d2l.ai "Probability and Statistics" (PyTorch tab)
https://d2l.ai/chapter_preliminaries/probability.html

Written for the gradstep corpus, following the section's code cells in order.
Edits vs the source:
- random.seed(0) / torch.manual_seed(0) added (unseeded in the book).
- The d2l.plot of the running estimates removed (no matplotlib); the last estimates printed.
- 10000 tosses -> 1000 (test time).
"""
import random
import torch
from torch.distributions.multinomial import Multinomial

random.seed(0)
torch.manual_seed(0)

num_tosses = 100
heads = sum([random.random() > 0.5 for _ in range(num_tosses)])
tails = num_tosses - heads
print("heads, tails: ", [heads, tails])

fair_probs = torch.tensor([0.5, 0.5])
print(Multinomial(100, fair_probs).sample())
print(Multinomial(100, fair_probs).sample() / 100)

counts = Multinomial(1000, fair_probs).sample()
print(counts / 1000)

counts = Multinomial(1, fair_probs).sample((1000,))
cum_counts = counts.cumsum(dim=0)
estimates = cum_counts / cum_counts.sum(dim=1, keepdims=True)
estimates = estimates.numpy()
print(estimates[-1])
