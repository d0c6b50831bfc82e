#!/usr/bin/python3
"""Makes the example TorchScript models of presets/models/ and the test fixtures of
tests/data/models/ (docs/own-model.md).

Run from the repository's root with Debian's Python and python3-torch
(apt-get install python3-torch):

    /usr/bin/python3 presets/models/make_models.py

Neither the build nor the tests need PyTorch: the .pt files are committed. The weights are
drawn from a fixed seed, so the files come out the same each time on one PyTorch version.
A model for FogStudio takes a batch of samples shaped like the data set's ([batch, C, H, W]
for images, [batch, features] for CSV and synthetic data) and returns the class scores
[batch, classes] (no softmax: FogStudio applies cross-entropy). It has float32 parameters,
no buffers (no BatchNorm: use GroupNorm) and no dropout (threads share PyTorch's random stream).
"""

import os
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(ROOT, "tests", "data", "models")


def save(model, path):
    model.eval()
    scripted = torch.jit.script(model)
    torch.jit.save(scripted, path)
    params = sum(p.numel() for p in model.parameters())
    print(f"{os.path.relpath(path, ROOT)}: {params} parameters, {os.path.getsize(path)} bytes")


def mlp(sizes):
    """Flatten, then Linear + ReLU per hidden layer, then a Linear to the classes: the layers
    (and parameter order) of FogStudio's built-in `model: {kind: mlp, hidden: [...]}`."""
    layers = [nn.Flatten()]
    for a, b in zip(sizes[:-2], sizes[1:-1]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    layers.append(nn.Linear(sizes[-2], sizes[-1]))
    return nn.Sequential(*layers)


def small_cnn(channels, side, classes=10):
    """Two 5x5 convolutions with 2x2 max pooling, GroupNorm after the first, two dense layers."""
    s = ((side - 4) // 2 - 4) // 2
    return nn.Sequential(
        nn.Conv2d(channels, 8, 5), nn.GroupNorm(2, 8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * s * s, 64), nn.ReLU(), nn.Linear(64, classes))


def main():
    os.makedirs(FIXTURES, exist_ok=True)
    torch.manual_seed(2026)
    # Examples (presets/models/).
    save(mlp([784, 64, 10]), os.path.join(HERE, "mlp-fmnist.pt"))       # = mlp hidden [64]
    save(small_cnn(1, 28), os.path.join(HERE, "cnn-fmnist.pt"))          # Fashion-MNIST 1x28x28
    save(small_cnn(3, 32), os.path.join(HERE, "cnn-cifar10.pt"))         # CIFAR-10 3x32x32
    # Test fixtures (tests/data/models/): synthetic data have 60 features and 10 classes.
    save(mlp([60, 32, 10]), os.path.join(FIXTURES, "mlp-60-32-10.pt"))
    save(mlp([60, 32, 7]), os.path.join(FIXTURES, "wrong-classes.pt"))  # [batch, 7]
    save(nn.Sequential(nn.Linear(60, 32), nn.Dropout(0.5), nn.Linear(32, 10)),
         os.path.join(FIXTURES, "dropout.pt"))
    save(nn.Sequential(nn.Linear(60, 32), nn.BatchNorm1d(32), nn.Linear(32, 10)),
         os.path.join(FIXTURES, "batchnorm.pt"))
    save(small_cnn(3, 32), os.path.join(FIXTURES, "cnn-3x32x32.pt"))


if __name__ == "__main__":
    main()
