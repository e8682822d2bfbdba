"""``mindspore.common.mutable``: ``mutable`` (see msjit.config.mutable)."""
from msjit import mutable

__all__ = ["mutable"]
