"""``mindspore.dataset``, the minimum ``Model.train`` and common examples use: numpy-backed,
eager datasets of rows (tuples of columns).

``NumpySlicesDataset(data)`` slices arrays along their first axis; ``GeneratorDataset(source)``
takes a generator function, an iterable or a random-access object (``__getitem__`` and
``__len__``). ``batch(n)`` stacks rows; ``map``, ``shuffle``, ``repeat``, ``take``, ``skip``,
``project`` and ``rename`` derive datasets as MindSpore's do; iterators yield Tensors (numpy with
``output_numpy``).
Shuffling (on by default, as in MindSpore, for sliceable sources) draws a new order per pass from
a generator seeded by ``set_seed`` when the dataset is made.
"""
import numpy as np

from ..context import get_seed
from ..tensor import Tensor

__all__ = ["Dataset", "NumpySlicesDataset", "GeneratorDataset"]


class Dataset:
    """Base: ``_rows()`` yields tuples of numpy values, one per column."""

    def __init__(self, column_names):
        self.column_names = list(column_names) if column_names is not None else None

    def _rows(self):
        raise NotImplementedError

    def batch(self, batch_size, drop_remainder=False, **unused):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise ValueError(f"batch: batch_size must be an int >= 1, got {batch_size!r}")
        return _Batched(self, batch_size, drop_remainder)

    def map(self, operations, input_columns=None, output_columns=None, **unused):
        """Apply ``operations`` (a callable or a list, chained) to ``input_columns`` of each row
        (all columns when None); the results replace them (named ``output_columns``)."""
        ops = operations if isinstance(operations, (list, tuple)) else [operations]
        names = self.get_col_names()
        inputs = [input_columns] if isinstance(input_columns, str) else list(input_columns or names)
        outputs = [output_columns] if isinstance(output_columns, str) else list(output_columns or inputs)
        where = [names.index(n) for n in inputs]

        def rows():
            for row in self._rows():
                values = tuple(row[i] for i in where)
                for op in ops:
                    values = op(*values)
                    values = values if isinstance(values, tuple) else (values,)
                kept = [v for i, v in enumerate(row) if i not in where]
                yield tuple(kept[:where[0]]) + tuple(np.asarray(v) for v in values) + tuple(kept[where[0]:])
        kept_names = [n for n in names if n not in inputs]
        return _Derived(rows, kept_names[:where[0]] + outputs + kept_names[where[0]:])

    def shuffle(self, buffer_size):
        """Rows in a random order (the whole dataset is one buffer; seeded by ``set_seed``)."""
        if not isinstance(buffer_size, int) or buffer_size < 2:
            raise ValueError(f"shuffle: buffer_size must be an int >= 2, got {buffer_size!r}")
        rng = np.random.default_rng(get_seed())

        def rows():
            rows = list(self._rows())
            return (rows[i] for i in rng.permutation(len(rows)))
        return _Derived(rows, self.column_names)

    def repeat(self, count=None):
        """The rows ``count`` times (None or -1: forever)."""
        def rows():
            n = 0
            while count in (None, -1) or n < count:
                yield from self._rows()
                n += 1
        return _Derived(rows, self.column_names)

    def take(self, count=-1):
        return _Derived(lambda: (r for k, r in enumerate(self._rows()) if count == -1 or k < count),
                        self.column_names)

    def skip(self, count):
        return _Derived(lambda: (r for k, r in enumerate(self._rows()) if k >= count), self.column_names)

    def project(self, columns):
        names = self.get_col_names()
        where = [names.index(c) for c in columns]
        return _Derived(lambda: (tuple(r[i] for i in where) for r in self._rows()), list(columns))

    def rename(self, input_columns, output_columns):
        mapping = dict(zip([input_columns] if isinstance(input_columns, str) else input_columns,
                           [output_columns] if isinstance(output_columns, str) else output_columns))
        return _Derived(self._rows, [mapping.get(n, n) for n in self.get_col_names()])

    def get_dataset_size(self):
        return sum(1 for _ in self._rows())

    def get_col_names(self):
        return list(self._names(None))

    def _names(self, row):
        if self.column_names is not None:
            return self.column_names
        return [f"column_{i}" for i in range(len(row or next(iter(self._rows()), ())))]

    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False, do_copy=True):
        """Rows as lists of Tensors (numpy arrays with ``output_numpy``), ``columns`` only if given."""
        names = self.get_col_names() if columns else None
        where = [names.index(c) for c in columns] if columns else None
        convert = (lambda v: v) if output_numpy else _tensor

        def row_of(row):
            return [convert(row[i]) for i in where] if where else [convert(v) for v in row]
        return _Iterator(self, num_epochs, row_of)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        """Rows as {column name: Tensor} (numpy arrays with ``output_numpy``)."""
        convert = (lambda v: v) if output_numpy else _tensor
        return _Iterator(self, num_epochs, lambda row: {n: convert(v) for n, v in zip(self._names(row), row)})

    def __iter__(self):
        return self.create_tuple_iterator()

    def __len__(self):
        return self.get_dataset_size()


class _Iterator:
    """One epoch per ``for`` loop over the same iterator, ``num_epochs`` times (-1: no limit),
    as MindSpore's dataset iterators: ``it = ds.create_tuple_iterator(num_epochs=2)`` then
    ``for epoch ...: for row in it``."""

    def __init__(self, dataset, num_epochs, convert):
        self.dataset, self.epochs_left, self.convert = dataset, num_epochs, convert
        self.rows = None

    def __iter__(self):
        return self

    def __next__(self):
        if self.rows is None:
            if self.epochs_left == 0:
                raise StopIteration
            if self.epochs_left > 0:
                self.epochs_left -= 1
            self.rows = self.dataset._rows()
        try:
            return self.convert(next(self.rows))
        except StopIteration:
            self.rows = None    # the next loop starts the next epoch
            raise


def _tensor(value):
    return Tensor(value) if isinstance(value, (np.ndarray, np.generic)) else value


class _Derived(Dataset):
    """A dataset whose rows come from ``rows()`` (map, shuffle, repeat, ...)."""

    def __init__(self, rows, column_names):
        super().__init__(column_names)
        self._rows = rows


class _Batched(Dataset):
    def __init__(self, source, size, drop_remainder):
        super().__init__(source.column_names)
        self.source, self.size, self.drop_remainder = source, size, drop_remainder

    def _rows(self):
        rows = []
        for row in self.source._rows():
            rows.append(row)
            if len(rows) == self.size:
                yield tuple(np.stack(col) for col in zip(*rows))
                rows = []
        if rows and not self.drop_remainder:
            yield tuple(np.stack(col) for col in zip(*rows))


def _order(n, rng):
    """Row order of one pass: a new permutation per pass (from a generator seeded by
    ``set_seed`` when the dataset was made), or in order when ``rng`` is None."""
    return range(n) if rng is None else rng.permutation(n)


def _as_row(item):
    row = item if isinstance(item, (tuple, list)) else (item,)
    return tuple(np.asarray(v) for v in row)


class NumpySlicesDataset(Dataset):
    """``NumpySlicesDataset(data, column_names=None, shuffle=None)``: rows are the slices of
    ``data`` (an array, a list, a tuple of arrays = columns, or a dict of columns) along axis 0."""

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None):
        if isinstance(data, dict):
            column_names = column_names or list(data)
            data = tuple(data.values())
        columns = data if isinstance(data, tuple) else (data,)
        self.columns = [np.asarray(c) for c in columns]   # (Python floats stay float64, as in MindSpore)
        if len({len(c) for c in self.columns}) != 1:
            raise ValueError(f"NumpySlicesDataset: columns of different lengths "
                             f"{[len(c) for c in self.columns]}")
        super().__init__(column_names)
        self._rng = None if shuffle is False else np.random.default_rng(get_seed())
        self.num_samples = num_samples

    def _rows(self):
        order = _order(len(self.columns[0]), self._rng)
        for k, i in enumerate(order):
            if self.num_samples is not None and k >= self.num_samples:
                return
            yield tuple(np.asarray(c[i]) for c in self.columns)


class GeneratorDataset(Dataset):
    """``GeneratorDataset(source, column_names=None, shuffle=None)``: rows from ``source``, a
    generator function (called once per pass), an iterable, or a random-access object."""

    def __init__(self, source, column_names=None, column_types=None, schema=None, num_samples=None,
                 num_parallel_workers=1, shuffle=None, sampler=None, num_shards=None, shard_id=None,
                 python_multiprocessing=True, max_rowsize=None):
        if isinstance(column_names, str):
            column_names = [column_names]
        super().__init__(column_names)
        self.source, self.num_samples = source, num_samples
        self.random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        if not (self.random_access or callable(source) or hasattr(source, "__iter__")):
            raise TypeError("GeneratorDataset: source must be a generator function, an iterable or an "
                            f"object with __getitem__ and __len__, got {type(source).__name__}")
        self._rng = np.random.default_rng(get_seed()) if self.random_access and shuffle is not False else None

    def _items(self):
        if self.random_access:
            return (self.source[int(i)] for i in _order(len(self.source), self._rng))
        return iter(self.source()) if callable(self.source) else iter(self.source)

    def _rows(self):
        for k, item in enumerate(self._items()):
            if self.num_samples is not None and k >= self.num_samples:
                return
            yield _as_row(item)
