# expect: forbidden
K = type('K', (), {})
