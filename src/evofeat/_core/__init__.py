"""evofeat's compiled core (Cython): the learner base, the one prequential loop, the dict path.

``core`` holds :class:`~evofeat._core.core.Core`, the base of every compiled
learner; ``loop`` the prequential loop and the dict path; ``scaling`` the
online scalers; ``safe.pxd``, ``bias.pxd``, ``losses.pxd``, ``adaptive.pxd``,
``topk.pxd``, ``rng.pxd`` and ``weight_vector.pxd`` the inline parts the
learners share (``helpers`` wraps some for Python).
"""
