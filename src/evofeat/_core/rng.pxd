# The one random generator of evofeat's compiled learners: SplitMix64 (Steele, Lea, Flood 2014),
# used two ways: as a stream (``next_uniform``: advance a 64-bit state by the golden gamma, mix)
# and counter-based (``draw_uniform(seed, stream, k)``: no state, so a draw can be repeated).
# Uniforms are the top 53 bits of the mixed word times 2^-53, in [0, 1).
from libc.stdint cimport uint64_t

cdef extern from *:
    """
    static const unsigned long long EVO_GOLDEN = 0x9E3779B97F4A7C15ULL;
    """
    const uint64_t GOLDEN "EVO_GOLDEN"


cdef inline uint64_t mix(uint64_t z) noexcept nogil:
    """SplitMix64's finaliser."""
    z = (z ^ (z >> 30)) * <uint64_t> 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t> 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline double to_uniform(uint64_t z) noexcept nogil:
    """The top 53 bits of ``z`` as a double in [0, 1)."""
    return <double> (z >> 11) * (1.0 / 9007199254740992.0)


cdef inline double next_uniform(uint64_t* state) noexcept nogil:
    """Advance the SplitMix64 ``state`` and return its next uniform in [0, 1)."""
    state[0] += GOLDEN
    return to_uniform(mix(state[0]))


cdef inline double peek_uniform(uint64_t state) noexcept nogil:
    """The uniform :func:`next_uniform` would return, without advancing the state."""
    return to_uniform(mix(state + GOLDEN))


cdef inline double draw_uniform(uint64_t seed, uint64_t stream, uint64_t k) noexcept nogil:
    """The ``k``-th uniform in [0, 1) of ``stream`` under ``seed`` (counter-based: no state)."""
    cdef uint64_t z = mix(seed + GOLDEN)
    z = mix(z ^ (stream * GOLDEN))
    z = mix(z + k * GOLDEN)
    return to_uniform(z)
