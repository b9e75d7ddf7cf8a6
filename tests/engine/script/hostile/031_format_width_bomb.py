# expect: limit
s = f'{1:>1000000000}'
