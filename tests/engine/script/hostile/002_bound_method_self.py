# expect: forbidden
s = [].append.__self__
