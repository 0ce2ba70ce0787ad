# The L2 ball as a constraint on a weight vector kept as ``w = scale * v`` (weight_vector.pxd): the projection
# ``w <- min(1, radius / ||w||) w`` is one factor on the scale, O(1), whatever the support. The caller passes
# ``||v||^2`` of the vector to project (e.g. the support's plus the entries about to enter it); ``radius = inf``
# is no constraint.
from libc.math cimport sqrt

from evofeat._core.ball cimport ball_scale
from evofeat._core.safe cimport fmax0


cdef inline void l2ball_project(double* scale, double sq_norm, double radius) noexcept nogil:
    """``scale *= radius / ||w||`` when ``||w|| = scale sqrt(sq_norm)`` exceeds ``radius``."""
    ball_scale(scale, scale[0] * sqrt(fmax0(sq_norm, 0.0)), radius)
