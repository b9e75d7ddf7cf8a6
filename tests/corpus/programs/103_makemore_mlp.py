"""Neural Networks: Zero to Hero, makemore part 2 -- the MLP language model (Bengio et al. 2003):
a context of three characters, an embedding table C indexed by a tensor of indices, a tanh
hidden layer, F.cross_entropy, minibatches by torch.randint, p.data updates, dev loss, sampling
with torch.multinomial and a seeded torch.Generator.

Source: Andrej Karpathy, lecture notebook lectures/makemore/makemore_part2_mlp.ipynb
https://github.com/karpathy/nn-zero-to-hero/blob/master/lectures/makemore/makemore_part2_mlp.ipynb
License: MIT (karpathy/nn-zero-to-hero)

Written for the gradstep corpus, following the notebook's "now made respectable" cells.
Edits vs the source:
- names.txt (32033 names, a file) replaced by 40 names in the program; the alphabet completed
  to the 26 letters, so that the tables keep the notebook's 27 rows.
- 200000 training steps -> 100 (the learning-rate drop moved from step 100000 to 50);
  torch.manual_seed(0) added for torch.randint's minibatches; 4 samples instead of 20 (the
  fifth draws within float32 rounding of a boundary of its distribution: torch and the engine
  pick neighbouring letters).
- The learning-rate search (lre/lrs), the loss plots and the embedding scatter left out.
"""
import random

import torch
import torch.nn.functional as F

torch.manual_seed(0)

words = ("emma olivia ava isabella sophia charlotte mia amelia harper evelyn abigail emily "
         "elizabeth mila ella avery sofia camila aria scarlett victoria madison luna grace "
         "chloe penelope layla riley zoey nora lily eleanor hannah lillian addison aubrey "
         "ellie stella natalie zoe").split()
print(len(words), words[:8])

# build the vocabulary of characters and mappings to/from integers
chars = sorted(list(set(''.join(words)) | set('abcdefghijklmnopqrstuvwxyz')))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi['.'] = 0
itos = {i: s for s, i in stoi.items()}
print(itos)

# build the dataset
block_size = 3  # context length: how many characters do we take to predict the next one?


def build_dataset(words):
    X, Y = [], []
    for w in words:

        # print(w)
        context = [0] * block_size
        for ch in w + '.':
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            # print(''.join(itos[i] for i in context), '--->', itos[ix])
            context = context[1:] + [ix]  # crop and append

    X = torch.tensor(X)
    Y = torch.tensor(Y)
    print(X.shape, Y.shape)
    return X, Y


random.seed(42)
random.shuffle(words)
n1 = int(0.8 * len(words))
n2 = int(0.9 * len(words))

Xtr, Ytr = build_dataset(words[:n1])
Xdev, Ydev = build_dataset(words[n1:n2])
Xte, Yte = build_dataset(words[n2:])

g = torch.Generator().manual_seed(2147483647)  # for reproducibility
C = torch.randn((27, 10), generator=g)
W1 = torch.randn((30, 200), generator=g)
b1 = torch.randn(200, generator=g)
W2 = torch.randn((200, 27), generator=g)
b2 = torch.randn(27, generator=g)
parameters = [C, W1, b1, W2, b2]

print(sum(p.nelement() for p in parameters))  # number of parameters in total

for p in parameters:
    p.requires_grad = True

lossi = []
stepi = []

for i in range(100):

    # minibatch construct
    ix = torch.randint(0, Xtr.shape[0], (32,))

    # forward pass
    emb = C[Xtr[ix]]  # (32, 3, 10)
    h = torch.tanh(emb.view(-1, 30) @ W1 + b1)  # (32, 200)
    logits = h @ W2 + b2  # (32, 27)
    loss = F.cross_entropy(logits, Ytr[ix])
    # print(loss.item())

    # backward pass
    for p in parameters:
        p.grad = None
    loss.backward()

    # update
    lr = 0.1 if i < 50 else 0.01
    for p in parameters:
        p.data += -lr * p.grad

    # track stats
    stepi.append(i)
    lossi.append(loss.log10().item())

print(loss.item(), lossi[::25])

emb = C[Xtr]  # (32, 3, 2)
h = torch.tanh(emb.view(-1, 30) @ W1 + b1)  # (32, 100)
logits = h @ W2 + b2  # (32, 27)
loss = F.cross_entropy(logits, Ytr)
print(loss)

emb = C[Xdev]  # (32, 3, 2)
h = torch.tanh(emb.view(-1, 30) @ W1 + b1)  # (32, 100)
logits = h @ W2 + b2  # (32, 27)
loss = F.cross_entropy(logits, Ydev)
print(loss)

# sample from the model
g = torch.Generator().manual_seed(2147483647 + 10)

for _ in range(4):

    out = []
    context = [0] * block_size  # initialize with all ...
    while True:
        emb = C[torch.tensor([context])]  # (1,block_size,d)
        h = torch.tanh(emb.view(1, -1) @ W1 + b1)
        logits = h @ W2 + b2
        probs = F.softmax(logits, dim=1)
        ix = torch.multinomial(probs, num_samples=1, generator=g).item()
        context = context[1:] + [ix]
        out.append(ix)
        if ix == 0:
            break

    print(''.join(itos[i] for i in out))
