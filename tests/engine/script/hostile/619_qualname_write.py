# expect: forbidden line 3
class A: pass
A.__qualname__ = 'B'
