# expect: forbidden line 3
lst = [0]
big = lst.__mul__(10**10)
