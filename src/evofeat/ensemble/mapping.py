"""The low-rank least-squares map from a new feature space back to the old one.

FESL (Hou et al., 2017, Sec. 4) recovers the vanished features from the new
ones with the least-squares map fitted on the ``B`` overlap rows that show
both spaces. With ``X1`` (``B x d1``) and ``X2`` (``B x d2``) those rows,

    M* = argmin_M ||X1 - X2 M||^2 = X2^+ X1,   psi(x2) = M*^T x2 = X1^T (X2 X2^T)^+ X2 x2,

the minimum-norm solution, equal to the paper's ``(X2^T X2)^{-1} X2^T X1``
whenever ``X2^T X2`` is invertible (``B >= d2``) and defined when it is not
(``B < d2``, the usual case). ``psi`` has rank at most ``B``, so it is never
stored as a ``d2 x d1`` matrix: recovering a row costs ``O(B nnz + B^2)``
through the ``B x B`` matrix ``(X2 X2^T)^+`` and the overlap rows
themselves, and a linear model ``w1`` of S1 enters only through ``X1 w1``
(``B`` numbers), since ``w1 . psi(x2) = (X1 w1) . (X2 X2^T)^+ X2 x2``.

The overlap rows are held column-wise, one row of ``buf`` per feature and one
column per overlap row, so a learner's per-feature state grows with them.

Extreme values: :func:`pinv_psd` and :func:`gram_pinv` return the zero matrix
(the map of no overlap rows) when the Gram matrix or its pseudo-inverse is
not finite, instead of raising ``LinAlgError``; the compiled core (``FESLCore.project_exp``) projects
a row whose products would overflow after rescaling it by a power of two and
returns that exponent. FESL also stores an overlap row whose largest value is
above ``2^100`` or below ``2^-100`` rescaled by a power of two (both spaces
together), which leaves the map unchanged when the overlap rows are linearly
independent, so the Gram matrices it inverts stay finite.
"""

from __future__ import annotations

from evofeat.ensemble._fesl import pinv_psd, project_exp

__all__ = ["pinv_psd", "project_exp"]
