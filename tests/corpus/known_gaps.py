"""Programs of the corpus known to fail today, by path: {(program, path): reason}.

test_corpus.py marks these xfail(strict=True): when a gap is fixed its test XPASSes and
fails, and the entry must be removed here and from KNOWN_GAPS.md (test_corpus checks that
both list the same entries). The reason is the cause, then the first failure seen.
Only the first failure of each run is known: fixing it may uncover the next one.
"""

KNOWN_GAPS = {
    ("001_examples_polynomial_numpy", "interpreter"):
        "interpreter refuses `import math` -- ScriptError(forbidden) line 13: import of 'math' is not available: scripts can import torch (and its nn, optim",
    ("002_examples_polynomial_tensor", "interpreter"):
        "interpreter refuses `import math` -- ScriptError(forbidden) line 13: import of 'math' is not available: scripts can import torch (and its nn, optim",
    ("003_examples_polynomial_autograd", "interpreter"):
        "interpreter refuses `import math` -- ScriptError(forbidden) line 13: import of 'math' is not available: scripts can import torch (and its nn, optim",
    ("004_examples_polynomial_custom_function", "interpreter"):
        "interpreter refuses `import math` -- ScriptError(forbidden) line 12: import of 'math' is not available: scripts can import torch (and its nn, optim",
    ("005_examples_polynomial_nn", "interpreter"):
        "interpreter refuses `import math` -- ScriptError(forbidden) line 12: import of 'math' is not available: scripts can import torch (and its nn, optim",
    ("006_examples_polynomial_optim", "interpreter"):
        "interpreter refuses `import math` -- ScriptError(forbidden) line 12: import of 'math' is not available: scripts can import torch (and its nn, optim",
    ("007_examples_polynomial_module", "interpreter"):
        "interpreter refuses `import math` -- ScriptError(forbidden) line 12: import of 'math' is not available: scripts can import torch (and its nn, optim",
    ("008_examples_dynamic_net", "interpreter"):
        "interpreter refuses `import math` -- ScriptError(forbidden) line 14: import of 'math' is not available: scripts can import torch (and its nn, optim",
    ("009_lpwe_two_layer_numpy", "interpreter"):
        "interpreter's numpy subset lacks np.random.default_rng -- ScriptError(forbidden) line 18: numpy.random.default_rng is not available in gradstep scripts (only a subset o",
    ("012_lpwe_custom_relu_function", "interpreter"):
        "torch.autograd.Function missing -- ScriptError(runtime) line 14: AttributeError: module 'torch.autograd' has no attribute 'Function'",
    ("016_lpwe_dynamic_net_relu", "interpreter"):
        "interpreter refuses `import random` -- ScriptError(forbidden) line 12: import of 'random' is not available: scripts can import torch (and its nn, opt",
    ("019_blitz_neural_networks", "engine"):
        "nn.Conv2d (and max_pool2d) missing -- AttributeError: module 'engine.nn' has no attribute 'Conv2d' (line 22)",
    ("019_blitz_neural_networks", "interpreter"):
        "nn.Conv2d (and max_pool2d) missing -- ScriptError(runtime) line 22: AttributeError: module 'torch.nn' has no attribute 'Conv2d'",
    ("020_basics_tensorqs", "engine"):
        "`out=` argument missing (torch.matmul(..., out=)) -- TypeError: matmul() got an unexpected keyword argument 'out' (line 63)",
    ("020_basics_tensorqs", "interpreter"):
        "`out=` argument missing (torch.matmul(..., out=)) -- ScriptError(runtime) line 63: TypeError: matmul() got an unexpected keyword argument 'out'",
    ("023_basics_data_custom_dataset", "interpreter"):
        "interpreter refuses `torch.utils.data` -- ScriptError(forbidden) line 16: import of 'torch.utils.data' is not available: scripts can import torch (and i",
    ("024_basics_optimization", "interpreter"):
        "interpreter refuses `torch.utils.data` -- ScriptError(forbidden) line 16: import of 'torch.utils.data' is not available: scripts can import torch (and i",
    ("025_basics_quickstart", "interpreter"):
        "interpreter refuses `torch.utils.data` -- ScriptError(forbidden) line 17: import of 'torch.utils.data' is not available: scripts can import torch (and i",
    ("026_nn_tutorial_from_scratch", "engine"):
        "indexing with a `range` object (x[range(n), y]) unsupported -- AttributeError: 'range' object has no attribute 'dtype' (line 48)",
    ("026_nn_tutorial_from_scratch", "interpreter"):
        "interpreter refuses `import math` -- ScriptError(forbidden) line 15: import of 'math' is not available: scripts can import torch (and its nn, optim",
    ("027_nn_tutorial_functional", "interpreter"):
        "interpreter refuses `import math` -- ScriptError(forbidden) line 13: import of 'math' is not available: scripts can import torch (and its nn, optim",
    ("028_nn_tutorial_module_linear_optim", "interpreter"):
        "interpreter refuses `import math` -- ScriptError(forbidden) line 16: import of 'math' is not available: scripts can import torch (and its nn, optim",
    ("029_nn_tutorial_dataset_fit", "interpreter"):
        "interpreter refuses `torch.utils.data` -- ScriptError(forbidden) line 22: import of 'torch.utils.data' is not available: scripts can import torch (and i",
    ("030_introyt_autograd", "engine"):
        "torch.sin_ / torch.asin missing -- AttributeError: module 'torch' has no attribute 'sin_' (line 159)",
    ("030_introyt_autograd", "interpreter"):
        "interpreter refuses `import math` -- ScriptError(forbidden) line 14: import of 'math' is not available: scripts can import torch (and its nn, optim",
    ("031_introyt_autograd_functional", "interpreter"):
        "torch.autograd.functional.jacobian/hessian/vjp missing -- ScriptError(forbidden) line 21: torch.autograd.functional is not available in gradstep scripts",
    ("032_introyt_tensors_deeper", "engine"):
        "torch.sin_ / torch.asin missing -- AttributeError: module 'torch' has no attribute 'asin' (line 129)",
    ("032_introyt_tensors_deeper", "interpreter"):
        "interpreter refuses `import math` -- ScriptError(forbidden) line 14: import of 'math' is not available: scripts can import torch (and its nn, optim",
    ("034_d2l_ndarray", "interpreter"):
        "interpreter refuses builtin id() -- ScriptError(forbidden) line 53: 'id' is not available in gradstep scripts",
    ("035_d2l_linear_algebra", "engine"):
        "numpy-style keyword aliases missing (keepdims=, axis=, size=) -- TypeError: _sum_method() got an unexpected keyword argument 'keepdims' (line 50)",
    ("035_d2l_linear_algebra", "interpreter"):
        "numpy-style keyword aliases missing (keepdims=, axis=, size=) -- ScriptError(runtime) line 50: TypeError: _sum_method() got an unexpected keyword argument 'keepdims'",
    ("037_d2l_autograd", "engine"):
        "numpy-style keyword aliases missing (keepdims=, axis=, size=) -- TypeError: randn() got an unexpected keyword argument 'size' (line 65)",
    ("037_d2l_autograd", "interpreter"):
        "numpy-style keyword aliases missing (keepdims=, axis=, size=) -- ScriptError(runtime) line 65: TypeError: randn() got an unexpected keyword argument 'size'",
    ("038_d2l_probability", "engine"):
        "torch.distributions missing -- ModuleNotFoundError: No module named 'torch.distributions' (line 14)",
    ("038_d2l_probability", "interpreter"):
        "torch.distributions missing -- ScriptError(forbidden) line 14: import of 'torch.distributions.multinomial' is not available: scripts can impo",
    ("039_d2l_linreg_scratch", "interpreter"):
        "interpreter refuses generator functions (yield) -- ScriptError(forbidden) line 41: generator functions (yield) are not supported",
    ("040_d2l_linreg_concise", "interpreter"):
        "interpreter refuses `torch.utils.data` -- ScriptError(forbidden) line 13: import of 'torch.utils' is not available: scripts can import torch (and its nn",
    ("041_d2l_softmax_scratch", "engine"):
        "indexing with a `range` object (x[range(n), y]) unsupported -- AttributeError: 'range' object has no attribute 'dtype' (line 62)",
    ("041_d2l_softmax_scratch", "interpreter"):
        "interpreter refuses `torch.utils.data` -- ScriptError(forbidden) line 17: import of 'torch.utils' is not available: scripts can import torch (and its nn",
    ("042_d2l_softmax_concise", "engine"):
        "numpy-style keyword aliases missing (keepdims=, axis=, size=) -- TypeError: argmax() got an unexpected keyword argument 'axis' (line 49)",
    ("042_d2l_softmax_concise", "interpreter"):
        "interpreter refuses `torch.utils.data` -- ScriptError(forbidden) line 15: import of 'torch.utils' is not available: scripts can import torch (and its nn",
    ("043_d2l_mlp_scratch", "engine"):
        "numpy-style keyword aliases missing (keepdims=, axis=, size=) -- TypeError: argmax() got an unexpected keyword argument 'axis' (line 66)",
    ("043_d2l_mlp_scratch", "interpreter"):
        "interpreter refuses `torch.utils.data` -- ScriptError(forbidden) line 15: import of 'torch.utils' is not available: scripts can import torch (and its nn",
    ("044_d2l_mlp_concise", "engine"):
        "numpy-style keyword aliases missing (keepdims=, axis=, size=) -- TypeError: argmax() got an unexpected keyword argument 'axis' (line 54)",
    ("044_d2l_mlp_concise", "interpreter"):
        "interpreter refuses `torch.utils.data` -- ScriptError(forbidden) line 15: import of 'torch.utils' is not available: scripts can import torch (and its nn",
    ("045_d2l_weight_decay", "interpreter"):
        "interpreter refuses `torch.utils.data` -- ScriptError(forbidden) line 16: import of 'torch.utils' is not available: scripts can import torch (and its nn",
    ("046_d2l_dropout", "interpreter"):
        "interpreter's size estimate refuses a Module whose constructor takes a bool after the sizes -- ScriptError(limit) line 66: layer too large: about 513802240 parameters (the limit is 10000000 per tensor)",
    ("047_d2l_model_construction", "interpreter"):
        "interpreter refuses underscore attributes (`_modules`, `_version`, `__class__`) -- ScriptError(forbidden) line 55: attribute '_modules' is not available: names starting with '_' are internal",
    ("048_d2l_parameters", "engine"):
        "numpy-style keyword aliases missing (keepdims=, axis=, size=) -- TypeError: rand() got an unexpected keyword argument 'size' (line 15)",
    ("048_d2l_parameters", "interpreter"):
        "numpy-style keyword aliases missing (keepdims=, axis=, size=) -- ScriptError(runtime) line 15: TypeError: rand() got an unexpected keyword argument 'size'",
    ("051_d2l_lazy_init", "engine"):
        "nn.LazyLinear missing -- AttributeError: module 'engine.nn' has no attribute 'LazyLinear' (line 15)",
    ("051_d2l_lazy_init", "interpreter"):
        "nn.LazyLinear missing -- ScriptError(runtime) line 15: AttributeError: module 'torch.nn' has no attribute 'LazyLinear'",
    ("059_migration_tensor_variable", "engine"):
        "legacy tensor types (torch.DoubleTensor/FloatTensor) missing -- AttributeError: module 'torch' has no attribute 'DoubleTensor' (line 16)",
    ("059_migration_tensor_variable", "interpreter"):
        "legacy tensor types (torch.DoubleTensor/FloatTensor) missing -- ScriptError(runtime) line 16: AttributeError: module 'torch' has no attribute 'DoubleTensor'",
    ("065_docs_functional_hessian", "interpreter"):
        "torch.autograd.functional.jacobian/hessian/vjp missing -- ScriptError(forbidden) line 19: torch.autograd.functional is not available in gradstep scripts",
    ("066_tutorial_double_backward_square", "interpreter"):
        "torch.autograd.Function missing -- ScriptError(runtime) line 15: AttributeError: module 'torch.autograd' has no attribute 'Function'",
    ("067_docs_extending_linear_function", "interpreter"):
        "interpreter refuses underscore attributes (`_modules`, `_version`, `__class__`) -- ScriptError(forbidden) line 73: attribute '__class__' is not available: names starting with '_' are internal",
    ("068_docs_extending_mulconstant", "interpreter"):
        "torch.autograd.Function missing -- ScriptError(runtime) line 13: ImportError: cannot import name 'Function' from 'torch.autograd'",
    ("069_discuss_custom_exp_save_grad", "interpreter"):
        "torch.autograd.Function missing -- ScriptError(runtime) line 18: AttributeError: module 'torch.autograd' has no attribute 'Function'",
    ("073_recipe_what_is_state_dict", "engine"):
        "nn.Conv2d (and max_pool2d) missing -- AttributeError: module 'engine.nn' has no attribute 'Conv2d' (line 20)",
    ("073_recipe_what_is_state_dict", "interpreter"):
        "nn.Conv2d (and max_pool2d) missing -- ScriptError(runtime) line 20: AttributeError: module 'torch.nn' has no attribute 'Conv2d'",
    ("081_makemore_bigram", "engine"):
        "numpy-style keyword aliases missing (keepdims=, axis=, size=) -- TypeError: _sum_method() got an unexpected keyword argument 'keepdims' (line 46)",
    ("081_makemore_bigram", "interpreter"):
        "numpy-style keyword aliases missing (keepdims=, axis=, size=) -- ScriptError(runtime) line 46: TypeError: _sum_method() got an unexpected keyword argument 'keepdims'",
    ("082_makemore_bigram_nn", "engine"):
        "F.one_hot missing -- AttributeError: module 'engine.nn.functional' has no attribute 'one_hot' (line 40)",
    ("082_makemore_bigram_nn", "interpreter"):
        "F.one_hot missing -- ScriptError(runtime) line 40: AttributeError: module 'torch.nn.functional' has no attribute 'one_hot'",
    ("083_notes_autograd_saved_tensors", "interpreter"):
        "interpreter refuses underscore attributes (`_modules`, `_version`, `__class__`) -- ScriptError(forbidden) line 28: attribute '_version' is not available: names starting with '_' are internal",
    ("087_docs_nn_init", "engine"):
        "nn.init.eye_ missing -- AttributeError: module 'engine.nn.init' has no attribute 'eye_' (line 29)",
    ("087_docs_nn_init", "interpreter"):
        "nn.init.eye_ missing -- ScriptError(runtime) line 29: AttributeError: module 'torch.nn.init' has no attribute 'eye_'",
}
