"""The array form of a stream, :class:`Stream` and :class:`Chunk`: defined in :mod:`evofeat.base.stream`.

They live in ``base`` because :meth:`~evofeat.base.OnlineLearner.learn_many`
runs its rows as a :class:`Stream`; this module keeps their public path
(``evofeat.streams.stream``) and the one of streams pickled before the move.
"""

from evofeat.base.stream import Chunk, Stream

__all__ = ["Chunk", "Stream"]
