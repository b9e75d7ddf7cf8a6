# expect: limit
import argparse
def endless(text):
    while True:
        text = text + ''
parser = argparse.ArgumentParser()
parser.add_argument('--x', type=endless, default='1')
args = parser.parse_args([])
