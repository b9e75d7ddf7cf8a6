# expect: limit
def k(v):
    return sorted([v], key=k)
k(1)
