# expect: forbidden
s = input()
