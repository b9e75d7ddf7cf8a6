"""yunjey/pytorch-tutorial, 02-intermediate/bidirectional_recurrent_neural_network: a two-layer
bidirectional nn.LSTM with batch_first=True over the 28 rows of an image, explicit zero initial
states for both directions, the last time step's 2*hidden features to nn.Linear, CrossEntropyLoss
and Adam; then test accuracy under torch.no_grad() with torch.max(outputs.data, 1).

Source: yunjey/pytorch-tutorial, tutorials/02-intermediate/bidirectional_recurrent_neural_network/main.py
https://github.com/yunjey/pytorch-tutorial/blob/master/tutorials/02-intermediate/bidirectional_recurrent_neural_network/main.py
License: MIT (yunjey/pytorch-tutorial)

Edits vs the source: each is marked "gradstep edit" where it is made.
- torchvision is not importable (no downloads): MNIST becomes TensorDatasets of random 1x28x28
  images in [0, 1) (ToTensor's range) with random labels, 40 for training and 20 for testing;
  torch.manual_seed(0) added before them.
- batch_size 100 -> 10, hidden_size 128 -> 32, and the loss printed every 2 steps instead of
  every 100 (an epoch is 4 steps).
- torch.save of the checkpoint removed (scripts write no files).
"""
import torch
import torch.nn as nn
# gradstep edit: the torchvision imports removed (see the header)


# Device configuration
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

# Hyper-parameters
sequence_length = 28
input_size = 28
hidden_size = 32  # gradstep edit: was 128
num_layers = 2
num_classes = 10
batch_size = 10  # gradstep edit: was 100
num_epochs = 2
learning_rate = 0.003

# MNIST dataset
# gradstep edit: random MNIST-shaped images (see the header)
torch.manual_seed(0)
train_dataset = torch.utils.data.TensorDataset(torch.rand(40, 1, 28, 28),
                                               torch.randint(0, 10, (40,)))

test_dataset = torch.utils.data.TensorDataset(torch.rand(20, 1, 28, 28),
                                              torch.randint(0, 10, (20,)))

# Data loader
train_loader = torch.utils.data.DataLoader(dataset=train_dataset,
                                           batch_size=batch_size,
                                           shuffle=True)

test_loader = torch.utils.data.DataLoader(dataset=test_dataset,
                                          batch_size=batch_size,
                                          shuffle=False)

# Bidirectional recurrent neural network (many-to-one)
class BiRNN(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, num_classes):
        super(BiRNN, self).__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(hidden_size*2, num_classes)  # 2 for bidirection

    def forward(self, x):
        # Set initial states
        h0 = torch.zeros(self.num_layers*2, x.size(0), self.hidden_size).to(device) # 2 for bidirection
        c0 = torch.zeros(self.num_layers*2, x.size(0), self.hidden_size).to(device)

        # Forward propagate LSTM
        out, _ = self.lstm(x, (h0, c0))  # out: tensor of shape (batch_size, seq_length, hidden_size*2)

        # Decode the hidden state of the last time step
        out = self.fc(out[:, -1, :])
        return out

model = BiRNN(input_size, hidden_size, num_layers, num_classes).to(device)


# Loss and optimizer
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)

# Train the model
total_step = len(train_loader)
for epoch in range(num_epochs):
    for i, (images, labels) in enumerate(train_loader):
        images = images.reshape(-1, sequence_length, input_size).to(device)
        labels = labels.to(device)

        # Forward pass
        outputs = model(images)
        loss = criterion(outputs, labels)

        # Backward and optimize
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if (i+1) % 2 == 0:  # gradstep edit: was 100
            print ('Epoch [{}/{}], Step [{}/{}], Loss: {:.4f}'
                   .format(epoch+1, num_epochs, i+1, total_step, loss.item()))

# Test the model
with torch.no_grad():
    correct = 0
    total = 0
    for images, labels in test_loader:
        images = images.reshape(-1, sequence_length, input_size).to(device)
        labels = labels.to(device)
        outputs = model(images)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()

    print('Test Accuracy of the model on the 10000 test images: {} %'.format(100 * correct / total))

# gradstep edit: `torch.save(model.state_dict(), 'model.ckpt')` removed (see the header)
print(model.lstm)
