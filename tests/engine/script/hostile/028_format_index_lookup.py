# expect: forbidden
s = '{0[0]}'.format(['a'])
