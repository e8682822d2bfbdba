"""``nn.optim``: Optimizer and MindSpore's SGD, Momentum, Adam and AdamWeightDecay."""
from .adam import Adam, AdamWeightDecay
from .optimizer import Optimizer
from .sgd import SGD, Momentum

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay"]
