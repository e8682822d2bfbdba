"""Cell containers: ``SequentialCell``, ``CellList`` and ``CellDict``.

Their Cells are sub-cells of the container (so their Parameters belong to the owner of the
container); list containers name them "0", "1", ... and renumber after an insertion or deletion.
Capture unrolls loops over them, so ``for cell in self.layers`` works in compiled code.
"""
from .cell import Cell, _bump


def _check_cell(owner, name, cell):
    if not isinstance(cell, Cell):
        raise TypeError(f"{owner}: item {name!r} is a {type(cell).__name__}, not a Cell")


class _CellSequence(Cell):
    """Cells (given as arguments, or as one list/tuple/OrderedDict) registered in order."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (list, tuple, dict)):
            args = args[0]
        items = args.items() if isinstance(args, dict) else ((str(i), c) for i, c in enumerate(args))
        for name, cell in items:
            _check_cell(type(self).__name__, name, cell)
            setattr(self, name, cell)

    def _index(self, index):
        n = len(self)
        if not isinstance(index, int) or not -n <= index < n:
            raise IndexError(f"{type(self).__name__}: index {index!r} is out of range for {n} cells")
        return index % n

    def _renumber(self, cells):
        """Register ``cells`` as "0", "1", ... in place of the current ones."""
        for name in list(self._cells):
            object.__delattr__(self, name)
        self._cells.clear()
        for i, cell in enumerate(cells):
            self._cells[str(i)] = cell
            object.__setattr__(self, str(i), cell)
        _bump()

    def __getitem__(self, index):
        cells = list(self._cells.values())
        if isinstance(index, slice):
            return type(self)(cells[index])
        return cells[self._index(index)]

    def _name(self, cell, index):
        if self._auto_prefix:
            cell.update_parameters_name(f"{self._param_prefix}{index}.")

    def __setitem__(self, index, cell):
        _check_cell(type(self).__name__, index, cell)
        cells = list(self._cells.values())
        index = self._index(index)
        self._name(cell, index)
        cells[index] = cell
        self._renumber(cells)

    def __delitem__(self, index):
        cells = list(self._cells.values())
        del cells[index if isinstance(index, slice) else self._index(index)]
        self._renumber(cells)

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(list(self._cells.values()))

    def __iadd__(self, cells):
        return self.extend(cells)

    def append(self, cell):
        _check_cell(type(self).__name__, len(self), cell)
        setattr(self, str(len(self)), cell)
        return self

    def extend(self, cells):
        for cell in cells:
            self.append(cell)
        return self

    def insert(self, index, cell):
        """Insert ``cell`` before position ``index``."""
        _check_cell(type(self).__name__, index, cell)
        cells = list(self._cells.values())
        cells.insert(index, cell)
        self._name(cell, cells.index(cell))
        self._renumber(cells)


class SequentialCell(_CellSequence):
    """``SequentialCell(*args)``: Cells (or one list/OrderedDict of them) applied in order."""

    def construct(self, input_data):
        for cell in self._cells.values():
            input_data = cell(input_data)
        return input_data


class CellList(_CellSequence):
    """``CellList(cells)``: a list of Cells whose parameters belong to the owner; iterate it in
    ``construct`` (loops over it are unrolled at capture). It is not itself callable."""

    def __init__(self, *args, **kwargs):
        super().__init__(*(a for a in args if a is not None))

    def construct(self, *args, **kwargs):
        raise TypeError("CellList is a container: iterate over it in construct rather than calling it")


class CellDict(Cell):
    """``CellDict(cells=None)``: Cells by name, with the dict API (keys in insertion order)."""

    def __init__(self, *args, **kwargs):
        super().__init__(auto_prefix=kwargs.get("auto_prefix", True))
        if args and args[0] is not None:
            self.update(args[0])

    def construct(self, *args, **kwargs):
        raise TypeError("CellDict is a container: index it in construct rather than calling it")

    def _key(self, key):
        if not isinstance(key, str) or not key or "." in key:
            raise KeyError(f"CellDict: keys must be non-empty str without '.', got {key!r}")
        return key

    def __getitem__(self, key):
        return self._cells[key]

    def __setitem__(self, key, cell):
        _check_cell("CellDict", key, cell)
        setattr(self, self._key(key), cell)

    def __delitem__(self, key):
        self._cells[key]   # noqa: B018  (KeyError for a missing key)
        delattr(self, key)

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(list(self._cells))

    def __contains__(self, key):
        return key in self._cells

    def keys(self):
        return self._cells.keys()

    def values(self):
        return self._cells.values()

    def items(self):
        return self._cells.items()

    def clear(self):
        for key in list(self._cells):
            del self[key]

    def pop(self, key):
        cell = self[key]
        del self[key]
        return cell

    def update(self, cells):
        """Add (key, Cell) pairs from a dict, a CellDict or an iterable of pairs."""
        pairs = cells.items() if hasattr(cells, "items") else cells
        for item in pairs:
            key, cell = item
            self[key] = cell
        return self

