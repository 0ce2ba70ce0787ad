# A norm ball as a constraint on a weight vector kept as ``w = scale * v`` (weight_vector.pxd): the projection
# ``w <- min(1, radius / ||w||) w`` is one factor on the scale, O(1), whatever the norm. The caller passes ``||w||``:
# the L2 ball (OFS, l2ball.pxd) from ``||v||^2``, the L1 ball (STSD) from ``sum |v|``; ``radius = inf`` is none.
cimport cython


@cython.cdivision(True)  # as STSD's .pyx had it: no zero check (norm > radius > 0)
cdef inline bint ball_scale(double* scale, double norm, double radius) noexcept nogil:
    """``scale *= radius / norm`` when ``norm = ||w||`` exceeds ``radius``; True if it did."""
    if norm > radius:
        scale[0] = scale[0] * (radius / norm)
        return True
    return False
