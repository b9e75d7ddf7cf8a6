# expect: forbidden
async def g():
    pass
