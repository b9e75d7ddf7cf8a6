# expect: forbidden
open('pwned.txt', 'w').write('x')
