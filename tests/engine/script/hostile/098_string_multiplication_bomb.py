# expect: limit
s = 'a' * 10**9
