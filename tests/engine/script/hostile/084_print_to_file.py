# expect: forbidden
print('x', file=open('pwned.txt', 'w'))
