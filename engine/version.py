"""``torch.version``: the PyTorch release the engine twins, as a CPU build of it reports itself.

Tutorials print ``torch.__version__`` first thing, and gate code on it
(``if torch.__version__ >= "2.0"``, ``torch.version.cuda is None``). PyTorch's CPU wheels spell it
``2.13.0+cpu`` (``torch.version.__version__``, a plain str; ``torch.__version__`` is the same
text as a ``TorchVersion``, ``torch_version.py``). The engine has no GPU: ``cuda`` and ``hip``
are None, as on that build.
"""

__version__ = "2.13.0+cpu"
debug = False
cuda = None
hip = None
rocm = None
xpu = None
