# expect: limit line 4
import argparse
parser = argparse.ArgumentParser()
parser.add_argument('--x', choices=range(10**12), type=int)
args = parser.parse_args(['--x', '-1'])
