# expect: forbidden line 4
class A(object):
    pass
meta = A.mro()[-1].__class__
builds = meta("B", (object,), {})
