# expect: limit line 4
import argparse
parser = argparse.ArgumentParser()
parser.add_argument('--x', nargs=10**8)
args = parser.parse_args([])
