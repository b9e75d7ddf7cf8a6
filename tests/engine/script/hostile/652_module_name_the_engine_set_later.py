# expect: forbidden line 8
import torch.nn as nn
class A(nn.MultiheadAttention):
    def __init__(self):
        self._qkv_same_embed_dim = 0  # the script's, until the engine's __init__ sets its own
        super().__init__(4, 2)
a = A()
flag = a._qkv_same_embed_dim
