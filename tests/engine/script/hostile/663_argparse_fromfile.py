# expect: forbidden line 3
import argparse
parser = argparse.ArgumentParser(fromfile_prefix_chars='@')
args = parser.parse_args(['@/etc/passwd'])
