# expect: limit
s = ('a' * 10**4).replace('a', 'b' * 10**4)
