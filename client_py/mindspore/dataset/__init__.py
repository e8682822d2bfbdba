"""``mindspore.dataset``: the minimal eager datasets ``Model.train`` and common examples use
(``NumpySlicesDataset``, ``GeneratorDataset``; ``batch``, ``create_tuple_iterator``,
``create_dict_iterator``, ``get_dataset_size``). No transforms or file formats."""
import msjit.train.dataset as _impl

from .._reexport import reexport

__all__ = reexport(globals(), _impl)
