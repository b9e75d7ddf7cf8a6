# expect: forbidden line 4
import argparse
parser = argparse.ArgumentParser()
parser.add_argument('--x', type=lambda s: s.__class__.__subclasses__())
args = parser.parse_args(['--x', 'a'])
