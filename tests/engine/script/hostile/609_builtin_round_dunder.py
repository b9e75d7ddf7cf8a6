# expect: forbidden line 2
r = (10).__round__(-10**8)
