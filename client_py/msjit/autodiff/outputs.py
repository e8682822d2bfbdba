"""What a gradient differentiates, decided once for the compiled and the eager path."""
from ..core import Tracer
from ..tensor import Tensor


def differentiated(leaves, has_aux, name):
    """Split the flattened outputs of ``name``: (indices of the differentiated tensors, indices of
    the other tensors). The first tensor with ``has_aux``, else every tensor; all must be float."""
    tensors = [i for i, v in enumerate(leaves) if isinstance(v, (Tensor, Tracer))]
    diff = tensors[:1] if has_aux else tensors
    if not diff or (has_aux and tensors[0] != 0):
        raise ValueError(f"grad: {name} must return a Tensor to differentiate"
                         + (" as its first output (has_aux=True)" if has_aux else ""))
    for k, i in enumerate(diff):
        if not leaves[i].dtype.is_floating:
            raise TypeError(f"grad: output {k} of {name} has dtype {leaves[i].dtype}; only floating-point "
                            "outputs have gradients")
    return diff, [i for i in tensors if i not in diff]


def not_a_tensor(position, arg):
    return TypeError(f"grad: argument {position} is a {type(arg).__name__}, not a Tensor; "
                     "only Tensor arguments can be differentiated")
