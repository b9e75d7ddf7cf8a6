# expect: limit
import timeit
x = timeit.timeit(lambda: 1, number=10**12)
