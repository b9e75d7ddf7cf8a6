# expect: runtime
g = (i for i in range(3))
f = g.gi_frame.f_globals
