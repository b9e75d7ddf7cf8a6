# expect: limit line 2
m = min([10**9, 10**8], key=lambda n: pow(7, n))
