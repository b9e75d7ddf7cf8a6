"""pytorch/examples, time_sequence_prediction: two LSTMCells and a Linear layer learn sine waves
starting at different phases, trained with L-BFGS (``optimizer.step(closure)`` calls the closure
up to 20 times per step, each call printing its loss), then predict the waves' future.

Source: pytorch/examples, time_sequence_prediction/train.py and generate_sine_wave.py
https://github.com/pytorch/examples/tree/main/time_sequence_prediction
License: BSD 3-Clause (pytorch/examples)

Edits vs the source: each is marked "gradstep edit" where it is made.
- generate_sine_wave.py's data is made inline instead of through traindata.pt (scripts read and
  write no files), with the same recipe and seed but smaller: N = 6 waves of L = 30 points
  (N = 100, L = 1000 in the source), so that the run takes seconds.
- parse_args() is given the arguments of a small run (a pasted script has no command line):
  --steps 2; the prediction runs 20 steps into the future (1000 in the source).
- The matplotlib plots (and their savefig) are removed: scripts write no files.
"""
from __future__ import print_function
import argparse
import torch
import torch.nn as nn
import torch.optim as optim
import numpy as np
# gradstep edit: `import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt`
# removed (see the header)

class Sequence(nn.Module):
    def __init__(self):
        super(Sequence, self).__init__()
        self.lstm1 = nn.LSTMCell(1, 51)
        self.lstm2 = nn.LSTMCell(51, 51)
        self.linear = nn.Linear(51, 1)

    def forward(self, input, future = 0):
        outputs = []
        h_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)

        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):# if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


# gradstep edit: generate_sine_wave.py, inline and smaller (L = 30, N = 6; see the header)
np.random.seed(2)

T = 20
L = 30
N = 6

x = np.empty((N, L), 'int64')
x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
data = np.sin(x / 1.0 / T).astype('float64')
# gradstep edit: `torch.save(data, open('traindata.pt', 'wb'))` removed (see the header)


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--steps', type=int, default=15, help='steps to run')
    opt = parser.parse_args(['--steps', '2'])  # gradstep edit: a small run's arguments
    # set random seed to 0
    np.random.seed(0)
    torch.manual_seed(0)
    # load data and make training set
    # gradstep edit: `data = torch.load('traindata.pt')` removed: data is made above
    input = torch.from_numpy(data[3:, :-1])
    target = torch.from_numpy(data[3:, 1:])
    test_input = torch.from_numpy(data[:3, :-1])
    test_target = torch.from_numpy(data[:3, 1:])
    # build the model
    seq = Sequence()
    seq.double()
    criterion = nn.MSELoss()
    # use LBFGS as optimizer since we can load the whole data to train
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8)
    #begin to train
    for i in range(opt.steps):
        print('STEP: ', i)
        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            print('loss:', loss.item())
            loss.backward()
            return loss
        optimizer.step(closure)
        # begin to predict, no need to track gradient here
        with torch.no_grad():
            future = 20  # gradstep edit: 1000 in the source
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)
            print('test loss:', loss.item())
            y = pred.detach().numpy()
        # gradstep edit: the plot of y (plt.figure ... plt.savefig('predict%d.pdf'%i)) removed
