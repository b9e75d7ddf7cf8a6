# expect: forbidden
try:
    1 / 0
except Exception as e:
    f = e.__traceback__.tb_frame
