# expect: forbidden line 2
w = (1).__format__('>999999999')
