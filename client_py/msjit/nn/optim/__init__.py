"""``nn.optim``: Optimizer and MindSpore's SGD, Momentum, Adam and AdamWeightDecay."""
from .adam import Adam, AdamWeightDecay
from .optimizer import Optimizer
from .momentum import Momentum
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay"]
