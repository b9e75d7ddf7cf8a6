# expect: limit
x = [0] * 10**9
