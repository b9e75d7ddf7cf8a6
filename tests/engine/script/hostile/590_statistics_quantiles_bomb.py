# expect: limit
import statistics
x = statistics.quantiles([1, 2, 3], n=10**9)
