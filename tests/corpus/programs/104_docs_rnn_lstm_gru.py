"""nn.RNN, nn.LSTM, nn.GRU and their cells -- the documented examples: (seq, batch, feature)
inputs with an initial state, the cell versions stepped in a loop, then batch_first,
num_layers=2, bidirectional outputs, and the shapes of weights and states.

Source: PyTorch documentation, "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"
https://pytorch.org/docs/stable/generated/torch.nn.RNN.html
https://pytorch.org/docs/stable/generated/torch.nn.LSTM.html
https://pytorch.org/docs/stable/generated/torch.nn.GRU.html
https://pytorch.org/docs/stable/generated/torch.nn.LSTMCell.html
License: BSD-3-Clause (pytorch/pytorch documentation)

Written for the gradstep corpus, following the pages' examples in order.
Edits vs the source:
- torch.manual_seed(0) added; shapes and a few values printed; the examples' sizes kept;
  GRUCell run for one step (its page's loop is RNNCell's, above).
- The bidirectional/batch_first part and the backward pass at the end are this program's.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)

rnn = nn.RNN(10, 20, 2)
input = torch.randn(5, 3, 10)
h0 = torch.randn(2, 3, 20)
output, hn = rnn(input, h0)
print(output.shape, hn.shape, output[-1, 0, :4])

rnn = nn.LSTM(10, 20, 2)
input = torch.randn(5, 3, 10)
h0 = torch.randn(2, 3, 20)
c0 = torch.randn(2, 3, 20)
output, (hn, cn) = rnn(input, (h0, c0))
print(output.shape, hn.shape, cn.shape, cn[1, 2, :4])

rnn = nn.GRU(10, 20, 2)
input = torch.randn(5, 3, 10)
h0 = torch.randn(2, 3, 20)
output, hn = rnn(input, h0)
print(output.shape, hn.shape, hn[0, 1, :4])

rnn = nn.RNNCell(10, 20)
input = torch.randn(6, 3, 10)
hx = torch.randn(3, 20)
output = []
for i in range(6):
    hx = rnn(input[i], hx)
    output.append(hx)
print(len(output), output[-1][0, :4])

rnn = nn.LSTMCell(10, 20)  # (input_size, hidden_size)
input = torch.randn(2, 3, 10)  # (time_steps, batch, input_size)
hx = torch.randn(3, 20)  # (batch, hidden_size)
cx = torch.randn(3, 20)
output = []
for i in range(input.size()[0]):
    hx, cx = rnn(input[i], (hx, cx))
    output.append(hx)
output = torch.stack(output, dim=0)
print(output.shape, output[1, 2, :4])

rnn = nn.GRUCell(10, 20)
hx = rnn(torch.randn(3, 10), torch.randn(3, 20))  # one step (the page loops as for RNNCell)
print(hx[2, :4])

# batch_first, two layers, both directions
lstm = nn.LSTM(input_size=4, hidden_size=3, num_layers=2, batch_first=True,
               bidirectional=True)
print([(name, tuple(p.shape)) for name, p in lstm.named_parameters()][:4])
x = torch.randn(2, 5, 4)  # (batch, seq, feature)
out, (h, c) = lstm(x)
print(out.shape, h.shape, c.shape)
# the last step of the forward direction is the top layer's forward final state
print(torch.allclose(out[:, -1, :3], h[2], atol=1e-6), torch.allclose(out[:, 0, 3:], h[3],
                                                                        atol=1e-6))
out.pow(2).mean().backward()
print(lstm.weight_ih_l0.grad.shape, lstm.weight_hh_l1_reverse.grad.abs().sum() > 0)
