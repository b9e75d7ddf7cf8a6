# expect: forbidden
os = __import__('os')
