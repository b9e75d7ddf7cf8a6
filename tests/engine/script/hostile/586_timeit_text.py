# expect: forbidden
import timeit
x = timeit.timeit('__import__("os")')
