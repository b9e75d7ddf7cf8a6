"""Learn the Basics -- Datasets & DataLoaders (a custom Dataset, iterated by a DataLoader).

Source: "Datasets & DataLoaders" (basics/data_tutorial)
https://pytorch.org/tutorials/beginner/basics/data_tutorial.html

Written for the gradstep corpus, following the tutorial's program step by step.
Edits vs the source:
- FashionMNIST (torchvision download) and the image files of CustomImageDataset (pandas
  read_csv + torchvision read_image) replaced by a synthetic in-memory data set of the same
  shapes: 256 "images" torch.rand(1, 28, 28) with labels torch.randint(0, 10), seed 0.
- The matplotlib figures (the 3x3 sample grid, plt.imshow of a batch image) removed.
- The transform / target_transform arguments kept in the Dataset's signature.
"""
import torch
from torch.utils.data import Dataset
from torch.utils.data import DataLoader

torch.manual_seed(0)

labels_map = {
    0: "T-Shirt",
    1: "Trouser",
    2: "Pullover",
    3: "Dress",
    4: "Coat",
    5: "Sandal",
    6: "Shirt",
    7: "Sneaker",
    8: "Bag",
    9: "Ankle Boot",
}


class CustomImageDataset(Dataset):
    def __init__(self, n, transform=None, target_transform=None):
        self.img_labels = torch.randint(0, 10, (n,))
        self.images = torch.rand(n, 1, 28, 28)
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return len(self.img_labels)

    def __getitem__(self, idx):
        image = self.images[idx]
        label = self.img_labels[idx]
        if self.transform:
            image = self.transform(image)
        if self.target_transform:
            label = self.target_transform(label)
        return image, label


training_data = CustomImageDataset(256)
test_data = CustomImageDataset(64)

sample_idx = torch.randint(len(training_data), size=(1,)).item()
img, label = training_data[sample_idx]
print(sample_idx, labels_map[label.item()], img.shape)

train_dataloader = DataLoader(training_data, batch_size=64, shuffle=True)
test_dataloader = DataLoader(test_data, batch_size=64, shuffle=True)

# Display image and label.
train_features, train_labels = next(iter(train_dataloader))
print(f"Feature batch shape: {train_features.size()}")
print(f"Labels batch shape: {train_labels.size()}")
img = train_features[0].squeeze()
label = train_labels[0]
print(f"Label: {label}")
print(img.shape, img.sum())
