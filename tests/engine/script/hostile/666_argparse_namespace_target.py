# expect: forbidden line 6
import argparse
import torch
parser = argparse.ArgumentParser()
parser.add_argument('--data', default=1)
args = parser.parse_args([], namespace=torch.ones(2))
