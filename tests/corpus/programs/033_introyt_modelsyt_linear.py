"""Introduction to PyTorch on YouTube -- Building Models with PyTorch: TinyModel, parameters,
the Linear layer.

Source: "Building Models with PyTorch" (introyt/modelsyt_tutorial)
https://pytorch.org/tutorials/beginner/introyt/modelsyt_tutorial.html

Written for the gradstep corpus, following the tutorial's program step by step.
Edits vs the source:
- Only the torch.nn.Module / Linear sections are kept; the convolutional (LeNet), recurrent
  (LSTMTagger) and transformer sections are left for other corpus programs.
- torch.manual_seed(0) added (unseeded in the tutorial).
"""
import torch


class TinyModel(torch.nn.Module):

    def __init__(self):
        super(TinyModel, self).__init__()

        self.linear1 = torch.nn.Linear(100, 200)
        self.activation = torch.nn.ReLU()
        self.linear2 = torch.nn.Linear(200, 10)
        self.softmax = torch.nn.Softmax()

    def forward(self, x):
        x = self.linear1(x)
        x = self.activation(x)
        x = self.linear2(x)
        x = self.softmax(x)
        return x


torch.manual_seed(0)
tinymodel = TinyModel()

print('The model:')
print(tinymodel)

print('\n\nJust one layer:')
print(tinymodel.linear2)

print('\n\nModel params:')
for param in tinymodel.parameters():
    print(param.shape)

print('\n\nLayer params:')
for param in tinymodel.linear2.parameters():
    print(param)

lin = torch.nn.Linear(3, 2)
x = torch.rand(1, 3)
print('Input:')
print(x)

print('\n\nWeight and Bias parameters:')
for param in lin.parameters():
    print(param)

y = lin(x)
print('\n\nOutput:')
print(y)

# Other layers and functions: normalisation-free activations and loss functions
my_tensor = torch.rand(1, 6, 6) * 20 + 5
print(my_tensor)
print(my_tensor.mean())

# Dropout
my_tensor = torch.rand(1, 4, 4)

dropout = torch.nn.Dropout(p=0.4)
print(dropout(my_tensor))
print(dropout(my_tensor))
