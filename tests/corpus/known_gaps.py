"""Programs of the corpus known to fail today, by path: {(program, path): reason}.

test_corpus.py marks these xfail(strict=True): when a gap is fixed its test XPASSes and
fails, and the entry must be removed here and from KNOWN_GAPS.md (test_corpus checks that
both list the same entries). The reason is the cause, then the first failure seen.
Only the first failure of each run is known: fixing it may uncover the next one.
"""

KNOWN_GAPS = {
    ('001_examples_polynomial_numpy', 'interpreter'):
        "interpreter's numpy subset lacks np.random.default_rng -- interpreter failed: ScriptError(forbidden) line 20: numpy.random.default_rng is not available in gradstep scripts (only a subset of numpy.random is)",
    ('009_lpwe_two_layer_numpy', 'interpreter'):
        "interpreter's numpy subset lacks np.random.default_rng -- interpreter failed: ScriptError(forbidden) line 18: numpy.random.default_rng is not available in gradstep scripts (only a subset of numpy.random is)",
    ('030_introyt_autograd', 'engine'):
        "`sin_` missing -- engine failed: AttributeError: module 'torch' has no attribute 'sin_' (line 159)",
    ('030_introyt_autograd', 'interpreter'):
        "`sin_` missing -- interpreter failed: ScriptError(runtime) line 159: AttributeError: module 'torch' has no attribute 'sin_'",
    ('032_introyt_tensors_deeper', 'engine'):
        "`bitwise_xor` missing -- engine failed: AttributeError: module 'torch' has no attribute 'bitwise_xor' (line 139)",
    ('032_introyt_tensors_deeper', 'interpreter'):
        "`bitwise_xor` missing -- interpreter failed: ScriptError(runtime) line 139: AttributeError: module 'torch' has no attribute 'bitwise_xor'",
    ('038_d2l_probability', 'engine'):
        "torch.distributions missing -- engine failed: ModuleNotFoundError: No module named 'torch.distributions' (line 14)",
    ('038_d2l_probability', 'interpreter'):
        "torch.distributions missing -- interpreter failed: ScriptError(forbidden) line 14: import of 'torch.distributions.multinomial' is not available: gradstep's torch has nn, nn.function",
    ('047_d2l_model_construction', 'interpreter'):
        "interpreter refuses underscore attributes (`_modules`, `_version`, `__class__`) -- interpreter failed: ScriptError(forbidden) line 55: attribute '_modules' is not available: names starting with '_' are internal",
    ('051_d2l_lazy_init', 'engine'):
        "nn.LazyLinear missing -- engine failed: AttributeError: module 'engine.nn' has no attribute 'LazyLinear' (line 15)",
    ('051_d2l_lazy_init', 'interpreter'):
        "nn.LazyLinear missing -- interpreter failed: ScriptError(runtime) line 15: AttributeError: module 'torch.nn' has no attribute 'LazyLinear'",
    ('067_docs_extending_linear_function', 'interpreter'):
        "interpreter refuses underscore attributes (`_modules`, `_version`, `__class__`) -- interpreter failed: ScriptError(forbidden) line 73: attribute '__class__' is not available: names starting with '_' are internal",
    ('083_notes_autograd_saved_tensors', 'interpreter'):
        "interpreter refuses underscore attributes (`_modules`, `_version`, `__class__`) -- interpreter failed: ScriptError(forbidden) line 28: attribute '_version' is not available: names starting with '_' are internal",
}
