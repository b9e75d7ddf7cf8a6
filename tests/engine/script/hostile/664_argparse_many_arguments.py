# expect: limit line 5
import argparse
parser = argparse.ArgumentParser()
for i in range(100000):
    parser.add_argument('--a' + str(i), default=i)
