# expect: limit line 7
import argparse
a = [0]
for i in range(40):
    a = [a, a]
parser = argparse.ArgumentParser()
parser.add_argument('--x', default=a, help='default: %(default)s')
parser.print_help()
