"""What each backward node does to the gradient, in words, for the inspector.

Keyed by PyTorch's node name. These are descriptions for people, not rules: the numbers shown
next to them are the ones the engine computed.
"""

VJP_NOTES = {
    "AddBackward0": "passes the incoming grad unchanged to both inputs (d(a+b)/da = d(a+b)/db = 1; "
                    "times alpha for the second); a constant operand gets nothing",
    "SubBackward0": "passes the grad to the first input and its negative to the second",
    "RsubBackward1": "sends the negated grad to its tensor input",
    "MulBackward0": "multiplies the grad by the other factor: grad_a = grad · b, grad_b = grad · a "
                    "(for t * t both edges go to t and are summed)",
    "DivBackward0": "grad_a = grad / b, grad_b = −grad · a / b²",
    "NegBackward0": "negates the grad",
    "PowBackward0": "grad · n · xⁿ⁻¹ (the exponent is a number)",
    "PowBackward1": "grad · y · xʸ⁻¹ to the base, grad · xʸ · ln x to the exponent",
    "ExpBackward0": "grad · exp(x) (the saved result)",
    "LogBackward0": "grad / x (x saved from forward)",
    "SqrtBackward0": "grad / (2 · sqrt(x))",
    "SinBackward0": "grad · cos(x)",
    "CosBackward0": "−grad · sin(x)",
    "TanhBackward0": "grad · (1 − tanh(x)²), from the saved result",
    "SigmoidBackward0": "grad · σ(x) · (1 − σ(x)), from the saved result",
    "ReluBackward0": "passes the grad where x > 0, zero elsewhere",
    "AbsBackward0": "grad · sign(x)",
    "SumBackward0": "expands the scalar grad to the input's shape: every element gets it",
    "SumBackward1": "expands the grad back over the summed dimensions",
    "MeanBackward0": "expands the grad to the input's shape and divides by the number of elements",
    "MeanBackward1": "expands the grad over the averaged dimensions, divided by their size",
    "MmBackward0": "grad_a = grad @ bᵀ, grad_b = aᵀ @ grad",
    "MvBackward0": "grad_A = outer(grad, v), grad_v = Aᵀ @ grad",
    "DotBackward0": "grad_a = grad · b, grad_b = grad · a",
    "AddmmBackward0": "bias gets grad (summed over the batch), mat1 gets grad @ mat2ᵀ, "
                      "mat2 gets mat1ᵀ @ grad",
    "TBackward0": "transposes the grad back",
    "TransposeBackward0": "transposes the grad back",
    "PermuteBackward0": "applies the inverse permutation to the grad",
    "ViewBackward0": "reshapes the grad back to the input's shape",
    "ReshapeAliasBackward0": "reshapes the grad back to the input's shape",
    "UnsqueezeBackward0": "squeezes the added dimension out of the grad",
    "SqueezeBackward0": "puts the removed dimensions back into the grad",
    "ExpandBackward0": "sums the grad over the expanded dimensions",
    "CloneBackward0": "passes the grad unchanged",
    "SoftmaxBackward0": "y · (grad − Σ grad · y), with y the saved softmax",
    "LogSoftmaxBackward0": "grad − softmax(x) · Σ grad",
    "NllLossBackward0": "−grad / N at each target class, zero elsewhere",
    "MseLossBackward0": "2 · (input − target) · grad / N",
    "CatBackward0": "slices the grad into the pieces that were concatenated",
    "StackBackward0": "splits the grad along the stacked dimension",
    "MaximumBackward0": "sends the grad to whichever input was larger (split on ties)",
    "MinimumBackward0": "sends the grad to whichever input was smaller (split on ties)",
    "ClampBackward1": "passes the grad where x was inside the bounds, zero where clamped",
    "SelectBackward0": "scatters the grad into zeros at the selected index",
    "IndexBackward0": "scatters the grad into zeros at the indexed positions (repeated indices add)",
    "SliceBackward0": "scatters the grad into zeros at the sliced positions",
    "Log1PBackward0": "grad / (1 + x)",
    "Expm1Backward0": "grad · (result + 1), i.e. grad · exp(x)",
    "ProdBackward0": "grad · (the product of all the other elements) to each element",
    "ProdBackward1": "along dim: grad · (the product of the other elements in that slice)",
    "VarBackward0": "grad · 2 · (x − mean) / (n − correction)",
    "StdBackward0": "grad · (x − mean) / ((n − correction) · std), from the saved std",
    "CumsumBackward0": "a reversed cumulative sum of the grad: each element gets the grads of "
                       "every running total it is part of",
    "LeakyReluBackward0": "passes the grad where x > 0, grad · negative_slope elsewhere",
    "LeakyReluBackward1": "passes the grad where the result > 0, grad · negative_slope elsewhere "
                          "(in place: decided from the saved result)",
    "GeluBackward0": "grad · (Φ(x) + x · φ(x)), with Φ, φ the normal CDF and density",
    "SiluBackward0": "grad · σ(x) · (1 + x · (1 − σ(x)))",
    "EluBackward0": "passes the grad where x > 0, grad · (result + alpha) elsewhere",
    "EluBackward1": "as EluBackward0, decided from the saved result (in place)",
    "SoftplusBackward0": "grad · σ(beta · x) (grad itself past the threshold)",
    "torch::autograd::AccumulateGrad": "adds the incoming grad into the leaf's .grad (creating it "
                                       "if it was None): this is where .grad gets written",
    "AccumulateGrad": "adds the incoming grad into the leaf's .grad (creating it if it was None): "
                      "this is where .grad gets written",
}


def vjp_note(node_name: str | None) -> str:
    if not node_name:
        return ""
    return VJP_NOTES.get(node_name) or VJP_NOTES.get(node_name.rsplit(":", 1)[-1], "")
