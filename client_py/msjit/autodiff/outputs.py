"""What a gradient differentiates, decided once for the compiled and the eager path."""
from ..core import Tracer
from ..tensor import Tensor


def _candidates(leaves, has_aux, name):
    tensors = [i for i, v in enumerate(leaves) if isinstance(v, (Tensor, Tracer))]
    # No tensor output at all (a Python or numpy value): zero gradients, as MindSpore gives.
    if has_aux and (not tensors or tensors[0] != 0):
        raise ValueError(f"grad: {name} must return a Tensor to differentiate"
                         + (" as its first output (has_aux=True)" if has_aux else ""))
    return tensors, tensors[:1] if has_aux else tensors


def differentiated(leaves, has_aux, name):
    """Split the flattened outputs of ``name``: (indices of the differentiated tensors, indices of
    the other tensors). The first tensor with ``has_aux``, else every tensor; of those, the
    floating-point ones (an integer or bool output, such as an arg-max index returned next to a
    loss, contributes no gradient; MindSpore differs only for an integer ``Cast`` of a float
    value, whose gradient it passes through)."""
    tensors, candidates = _candidates(leaves, has_aux, name)
    diff = [i for i in candidates if leaves[i].dtype.is_floating]
    return diff, [i for i in tensors if i not in diff]


def sensitivities(sens, leaves, has_aux, diff):
    """The sensitivities of the ``diff`` outputs from those given with ``sens_param``: one per
    differentiated output, or one per candidate output (integer ones are dropped)."""
    _, candidates = _candidates(leaves, has_aux, "the function")
    if len(sens) == len(candidates):
        return [s for i, s in zip(candidates, sens) if i in diff]
    if len(sens) == len(diff):
        return list(sens)
    raise ValueError(f"grad: sens_param expects {len(candidates)} sensitivities (one per output), got {len(sens)}")

