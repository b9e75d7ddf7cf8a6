"""Loss modules: thin holders of a reduction (and weights) that call ``nn.functional``."""

from __future__ import annotations

from . import functional as F
from . import losses_margin as _margin
from . import losses_more as _more
from .module import Module


class _Loss(Module):
    _torch_class_name = "torch.nn.modules.loss._Loss"

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = F.legacy_reduction(size_average, reduce)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    _torch_class_name = "torch.nn.modules.loss._WeightedLoss"

    # the class weights are a buffer, so they appear in state_dict as in PyTorch
    def __init__(self, weight=None, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """Mean squared error between input and target."""

    _torch_class_name = "torch.nn.modules.loss.MSELoss"

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """Mean absolute error between input and target."""

    _torch_class_name = "torch.nn.modules.loss.L1Loss"

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of class indices under log-probabilities."""

    _torch_class_name = "torch.nn.modules.loss.NLLLoss"

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy of logits against class indices or class probabilities."""

    _torch_class_name = "torch.nn.modules.loss.CrossEntropyLoss"

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities."""

    _torch_class_name = "torch.nn.modules.loss.BCELoss"

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of logits (sigmoid folded in, numerically stable)."""

    _torch_class_name = "torch.nn.modules.loss.BCEWithLogitsLoss"

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean",
                 pos_weight=None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Squared error below ``beta``, absolute error above (DQN's loss)."""

    _torch_class_name = "torch.nn.modules.loss.SmoothL1Loss"

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean",
                 beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return _more.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Squared error below ``delta``, delta-scaled absolute error above."""

    _torch_class_name = "torch.nn.modules.loss.HuberLoss"

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return _more.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of ``target`` from log-probabilities ``input``."""

    _torch_class_name = "torch.nn.modules.loss.KLDivLoss"

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean",
                 log_target: bool = False) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return _more.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class CosineEmbeddingLoss(_Loss):
    """Pulls pairs labelled 1 to cosine 1, pushes pairs labelled -1 below ``margin``."""

    _torch_class_name = "torch.nn.modules.loss.CosineEmbeddingLoss"

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return _margin.cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                             reduction=self.reduction)


class MarginRankingLoss(_Loss):
    """Asks ``x1`` to rank above ``x2`` by ``margin`` where the target is 1 (below for -1)."""

    _torch_class_name = "torch.nn.modules.loss.MarginRankingLoss"

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return _margin.margin_ranking_loss(input1, input2, target, margin=self.margin,
                                           reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """Asks the anchor to be nearer the positive than the negative, by ``margin``."""

    _torch_class_name = "torch.nn.modules.loss.TripletMarginLoss"

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                 swap: bool = False, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return _margin.triplet_margin_loss(anchor, positive, negative, margin=self.margin,
                                           p=self.p, eps=self.eps, swap=self.swap,
                                           reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Negative log-likelihood of the target under a Gaussian of predicted mean and variance."""

    _torch_class_name = "torch.nn.modules.loss.GaussianNLLLoss"

    def __init__(self, *, full: bool = False, eps: float = 1e-6,
                 reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input, target, var):
        return _margin.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                         reduction=self.reduction)
