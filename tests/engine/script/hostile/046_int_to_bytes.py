# expect: forbidden
b = (1).to_bytes(10**9, 'big')
