r"""Left inverses of a ReLU layer computed in advance for a list of index sets (Cor. "ReLU-dual II").

:class:`LeftInverseBank` holds the canonical dual of :math:`\Phi_J` for every index set ``J``
of the bank (the paper suggests the most correlated bases or the facets of the inscribing
polytope) and reconstructs an output with any set contained in its positive coordinates;
rows no set covers are solved with their own active set, as in
:func:`~relu_frames_nb.paper.reconstruction.reconstruct`.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from .._util.patterns import CHUNK_ELEMS, not_recoverable, pattern_keys, pattern_words, solve_active, spans_rows
from .._util.validation import as_count, as_index_set, as_nonnegative, as_outputs, as_positive
from ..errors import DimensionMismatchError, InputError, NotAFrameError
from ..frames import DEFAULT_RANK_TOL
from ..layer import ReLULayer, as_layer
from .bias.correlated import most_correlated_basis
from .bias.polytope import inscribing_polytope

__all__ = ["LeftInverseBank"]

#: A bank scans all of its sets for containment only when ``len(bank) * ceil(m / 64)`` is at
#: most this (beyond it the scan costs more per row than solving the row's own normal equations).
_SCAN_AUTO_LIMIT = 2048


def _as_index_sets(index_sets: Any, m: int) -> list[np.ndarray]:
    """Sorted, de-duplicated index sets from a bool matrix, an int matrix or an iterable of sets."""
    if isinstance(index_sets, np.ndarray) or (hasattr(index_sets, "detach") and hasattr(index_sets, "cpu")):
        arr = np.asarray(index_sets.detach().cpu().numpy() if hasattr(index_sets, "detach") else index_sets)
        if arr.ndim == 2 and arr.dtype == bool:
            if arr.shape[1] != m:
                raise DimensionMismatchError(
                    f"index_sets as a boolean matrix must have {m} columns; got shape {arr.shape}."
                )
            rows = [np.flatnonzero(r) for r in np.unique(arr, axis=0)]
            return [r for r in rows]
        if arr.ndim == 2 and np.issubdtype(arr.dtype, np.integer):
            if arr.size and (arr.min() < 0 or arr.max() >= m):
                raise InputError(f"index_sets must contain indices in [0, {m}); got values in [{arr.min()}, {arr.max()}].")
            srt = np.sort(arr, axis=1)
            if srt.shape[1] > 1 and np.any(srt[:, 1:] == srt[:, :-1]):
                r = int(np.flatnonzero(np.any(srt[:, 1:] == srt[:, :-1], axis=1))[0])
                raise InputError(f"index_sets[{r}] must not repeat an index; got {arr[r].tolist()}.")
            return [r.astype(np.intp) for r in np.unique(srt, axis=0)]
        if arr.ndim != 1 or arr.dtype != object:
            raise InputError(
                f"index_sets must be a (K, m) bool matrix, a (K, s) int matrix or a list of index sets; "
                f"got an array of shape {arr.shape} and dtype {arr.dtype}."
            )
    if isinstance(index_sets, (str, bytes)) or not isinstance(index_sets, Iterable):
        raise InputError(f"index_sets must be a list of index sets; got {type(index_sets).__name__}.")
    seen: dict[tuple, np.ndarray] = {}
    for k, J in enumerate(index_sets):
        idx = np.sort(as_index_set(J, m, f"index_sets[{k}]"))
        seen.setdefault(tuple(idx.tolist()), idx)
    return list(seen.values())


class LeftInverseBank:
    r"""Left inverses of a ReLU layer precomputed for a list of index sets (Cor. "ReLU-dual II").

    For every index set ``J`` with :math:`\Phi_J` a frame, the canonical dual synthesis
    matrix :math:`\tilde D_J` is computed once. An output ``z`` is then reconstructed with
    any ``J`` of the bank contained in :math:`\{i : z_i > 0\}`: exact by Cor. "ReLU-dual II",
    and only a small matrix-vector product per row. The paper suggests the most correlated
    bases :math:`J^*(x)` or the facets of the inscribing polytope as index sets
    (:meth:`from_most_correlated_bases`, :meth:`from_facets`).

    Parameters
    ----------
    layer : ReLULayer
    index_sets : list of index sets, or ndarray of shape (K, s) (int) or (K, m) (bool)
        Each set is a collection of indices or a bool mask of length ``m``. Duplicates
        are merged; every set must span.
    rank_tol : float, default 1e-10
        Relative singular-value tolerance for deciding that a set spans.

    Attributes
    ----------
    layer : ReLULayer
    index_sets : tuple of ndarray
        The sets (sorted indices), best conditioned first (largest lower frame bound).
    lower_bounds, upper_bounds : ndarray, shape (K,)
        Optimal frame bounds :math:`A_J, B_J` of each sub-frame; :math:`1/A_J` is the
        local stability constant of its reconstruction (Prop. "local stability").

    Raises
    ------
    NotAFrameError
        If an index set does not span :math:`\mathbb{R}^n` (the message names it).

    Notes
    -----
    Choosing a set for a row: first its own top-``n`` set (the ``n`` largest
    :math:`z_i + \alpha_i` among the positive coordinates, which is :math:`J^*(x)` for a
    full-spark frame whenever :math:`J^*(x) \subseteq I_x^\alpha`) is looked up by key in
    :math:`O(\log K)`; then, for a bank small enough (``K * ceil(m / 64) <= 2048`` by default),
    every set is tested for containment with bitwise operations and the best-conditioned
    covering set is used. Rows no set covers are solved with their own active set, as in
    :func:`reconstruct`.

    Examples
    --------
    >>> import numpy as np, relu_frames_nb as rf
    >>> L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
    >>> bank = LeftInverseBank(L, [[0, 1], [1, 2], [0, 2]])
    >>> len(bank)
    3
    >>> X = rf.Ball(2).sample(100, seed=1)
    >>> np.allclose(bank.reconstruct(L(X)), X)
    True
    """

    def __init__(self, layer: ReLULayer, index_sets: Any, *, rank_tol: float = DEFAULT_RANK_TOL) -> None:
        L = as_layer(layer)
        rank_tol = as_positive(rank_tol, "rank_tol")
        phi = L.frame.vectors
        m, n = phi.shape
        sets = _as_index_sets(index_sets, m)
        if not sets:
            raise InputError("index_sets must contain at least one index set; got none.")
        K = len(sets)
        sizes = np.array([s.size for s in sets], dtype=np.intp)
        smax = int(sizes.max())
        cols = np.zeros((K, smax), dtype=np.intp)
        duals = np.zeros((K, n, smax))
        lower = np.empty(K)
        upper = np.empty(K)
        normalized = L.frame.is_normalized()
        for size in np.unique(sizes):
            ks = np.flatnonzero(sizes == size)
            if size < n:
                k = int(ks[0])
                raise NotAFrameError(
                    f"index_sets[{k}] must span R^{n}; got {size} < {n} indices {sets[k].tolist()}."
                )
            idx = np.stack([sets[k] for k in ks])
            P = phi[idx]
            u, s, vt = np.linalg.svd(P, full_matrices=False)
            sv = s if normalized else np.linalg.svd(P / L.frame.norms[idx][..., None], compute_uv=False)
            bad = sv[:, -1] <= rank_tol * sv[:, 0]
            if np.any(bad):
                k = int(ks[np.flatnonzero(bad)[0]])
                rank = spans_rows(phi, sets[k], rank_tol)[1]
                raise NotAFrameError(
                    f"index_sets[{k}] must span R^{n}; got rank {rank} for {sets[k].tolist()[:20]}. "
                    "Remove it or pass only bases/facets of the frame."
                )
            cols[ks, :size] = idx
            duals[ks, :, :size] = np.swapaxes(vt, 1, 2) @ (np.swapaxes(u, 1, 2) / s[:, :, None])
            lower[ks] = s[:, -1] ** 2
            upper[ks] = s[:, 0] ** 2
        perm = np.argsort(-lower, kind="stable")
        self._layer = L
        self._rank_tol = rank_tol
        self._sets = tuple(sets[k] for k in perm)
        self._sizes = sizes[perm]
        self._cols = cols[perm]
        self._duals = duals[perm]
        self._lower = lower[perm]
        self._upper = upper[perm]
        members = np.zeros((K, m), dtype=bool)
        np.put_along_axis(members, self._cols, True, axis=1)
        members[:, 0] = False
        members[self._cols[:, 0] == 0, 0] = True  # padding uses index 0; restore where 0 is a member
        self._members = members
        self._member_words = pattern_words(members)
        basis = np.flatnonzero(self._sizes == n)
        keys = pattern_keys(members[basis])
        order = np.argsort(keys, kind="stable")
        self._key_sorted = keys[order]
        self._key_bank = basis[order]
        for arr in (self._lower, self._upper):
            arr.setflags(write=False)

    # ----------------------------------------------------------- constructors
    @classmethod
    def from_most_correlated_bases(
        cls, layer: ReLULayer, X: Any, *, rank_tol: float = DEFAULT_RANK_TOL
    ) -> LeftInverseBank:
        r"""A bank of the distinct most correlated bases :math:`J^*(x)` over the samples ``X``.

        Parameters
        ----------
        layer : ReLULayer
        X : array_like, shape (N, n)
            Samples of the data domain; :func:`relu_frames_nb.paper.bias.correlated.most_correlated_basis`
            gives each :math:`J^*(x)`.
        rank_tol : float, default 1e-10

        Returns
        -------
        LeftInverseBank
            With one set per distinct most correlated basis.

        Examples
        --------
        >>> import numpy as np, relu_frames_nb as rf
        >>> L = rf.ReLULayer(rf.zoo.random_sphere(12, 3, seed=0), 0.0)
        >>> X = rf.Sphere(3).sample(200, seed=1)
        >>> bank = LeftInverseBank.from_most_correlated_bases(L, X)
        >>> bool(np.all(bank.assign(L(X)) >= 0)), np.allclose(bank.reconstruct(L(X)), X)
        (True, True)
        """
        L = as_layer(layer)
        J = most_correlated_basis(L.frame, X)
        J = np.asarray(J[0] if isinstance(J, tuple) else J)
        if J.ndim == 1:
            J = J[None, :]
        return cls(L, J.astype(np.intp), rank_tol=rank_tol)

    @classmethod
    def from_facets(cls, layer: ReLULayer, *, rank_tol: float = DEFAULT_RANK_TOL, **kwargs: Any) -> LeftInverseBank:
        r"""A bank of the facets :math:`I_F` of the inscribing polytope :math:`P_\Phi`.

        If :math:`\Phi` is omnidirectional, every ``x`` lies in the cone of some facet ``F``
        and :math:`\tilde D^\alpha_{I_F}` is a left inverse at ``x`` whenever
        :math:`I_F \subseteq I_x^\alpha` (Cor. after "ReLU-dual II"), e.g. for a bias from
        polytope bias estimation. Facets whose hyperplane passes through 0 (possible only
        when the frame is not omnidirectional) do not span and are left out; rows outside
        every facet set are solved with their own active set.

        Parameters
        ----------
        layer : ReLULayer
        rank_tol : float, default 1e-10
        **kwargs
            Passed to :func:`relu_frames_nb.paper.bias.polytope.inscribing_polytope`
            (``facets="exact"`` or ``"simplices"``, ``max_facets``, ``tol``).

        Returns
        -------
        LeftInverseBank
            With one set per facet (the indices of its vertices).

        Examples
        --------
        >>> import numpy as np, relu_frames_nb as rf
        >>> L = rf.ReLULayer(rf.zoo.platonic("icosahedron"), 0.0)
        >>> bank = LeftInverseBank.from_facets(L)
        >>> len(bank)
        20
        >>> X = rf.Sphere(3).sample(50, seed=0)
        >>> bool(np.all(bank.assign(L(X)) >= 0)), np.allclose(bank.reconstruct(L(X)), X)
        (True, True)
        """
        L = as_layer(layer)
        P = inscribing_polytope(L.frame, **kwargs)
        keep = np.abs(P.offsets) > P.tol
        sets = [f for f, k in zip(P.facets, keep) if k]
        if not sets:
            raise NotAFrameError("the facets of the inscribing polytope must include a spanning one; got none.")
        return cls(L, sets, rank_tol=rank_tol)

    # -------------------------------------------------------------- accessors
    @property
    def layer(self) -> ReLULayer:
        """The layer the left inverses belong to."""
        return self._layer

    @property
    def index_sets(self) -> tuple[np.ndarray, ...]:
        """The index sets, best conditioned first."""
        return self._sets

    @property
    def lower_bounds(self) -> np.ndarray:
        """Lower frame bounds :math:`A_J`, shape ``(K,)``."""
        return self._lower

    @property
    def upper_bounds(self) -> np.ndarray:
        """Upper frame bounds :math:`B_J`, shape ``(K,)``."""
        return self._upper

    def dual(self, k: int) -> np.ndarray:
        """The ``(n, |J_k|)`` synthesis matrix of the ``k``-th set (columns follow ``index_sets[k]``)."""
        k = as_count(k, "k", minimum=0)
        if k >= len(self):
            raise InputError(f"k must be < {len(self)} (the number of sets); got {k}.")
        return np.array(self._duals[k, :, : self._sizes[k]])

    def __len__(self) -> int:
        return len(self._sets)

    def __repr__(self) -> str:
        return f"LeftInverseBank({len(self)} sets, sizes {self._sizes.min()}..{self._sizes.max()}, layer={self._layer!r})"

    def _check_layer(self, L: ReLULayer) -> None:
        if L is self._layer:
            return
        if L.frame != self._layer.frame or not np.array_equal(L.alpha, self._layer.alpha):
            raise InputError(
                "bank must belong to the same layer (frame and bias); got a bank built for "
                f"{self._layer!r} and the layer {L!r}. Build the bank from this layer."
            )

    # ------------------------------------------------------------------- work
    def assign(self, Z: Any, *, scan: bool | None = None) -> np.ndarray:
        r"""For each output, the bank set used to reconstruct it.

        Parameters
        ----------
        Z : array_like, shape (m,) or (N, m)
            Outputs of the layer.
        scan : bool, optional
            Test every set for containment in :math:`\{i : z_i > 0\}` (bitwise, cost
            ``N * K * ceil(m / 64)``). Default: only when ``K * ceil(m / 64) <= 2048``. The key
            lookup of each row's own top-``n`` set is always done.

        Returns
        -------
        ndarray of int, shape (N,) (or an int for one output)
            Index into :attr:`index_sets` (best conditioned covering set), or ``-1`` where
            no set is contained in the positive coordinates.
        """
        L = self._layer
        Zb, single = as_outputs(Z, L.m, "Z")
        choice = self._assign(Zb, Zb > 0, scan)
        return int(choice[0]) if single else choice

    def _assign(self, Zb: np.ndarray, mask: np.ndarray, scan: bool | None) -> np.ndarray:
        N, m = Zb.shape
        n = self._layer.n
        K = len(self)
        choice = np.full(N, -1, dtype=np.intp)
        if N == 0:
            return choice
        counts = mask.sum(axis=1)
        if self._key_sorted.size:
            rows = np.flatnonzero(counts >= n)
            chunk = max(1, CHUNK_ELEMS // m)
            for r0 in range(0, rows.size, chunk):
                rr = rows[r0 : r0 + chunk]
                vals = np.where(mask[rr], Zb[rr] + self._layer.alpha, -np.inf)
                top = np.argpartition(-vals, n - 1, axis=1)[:, :n]
                cand = np.zeros((rr.size, m), dtype=bool)
                np.put_along_axis(cand, top, True, axis=1)
                keys = pattern_keys(cand)
                pos = np.minimum(np.searchsorted(self._key_sorted, keys), self._key_sorted.size - 1)
                hit = self._key_sorted[pos] == keys
                choice[rr[hit]] = self._key_bank[pos[hit]]
        if scan is None:
            scan = K * self._member_words.shape[1] <= _SCAN_AUTO_LIMIT
        if scan:
            rows = np.flatnonzero((choice < 0) & (counts >= self._sizes.min()))
            off = ~pattern_words(mask[rows])
            bank = self._member_words
            chunk = max(1, CHUNK_ELEMS // K)
            for r0 in range(0, rows.size, chunk):
                missing = np.zeros((min(chunk, rows.size - r0), K), dtype=bool)
                for w in range(bank.shape[1]):
                    missing |= (off[r0 : r0 + chunk, w, None] & bank[None, :, w]) != 0
                covered = ~missing
                has = covered.any(axis=1)
                choice[rows[r0 : r0 + chunk][has]] = np.argmax(covered[has], axis=1)
        return choice

    def _apply(self, Zb: np.ndarray, choice: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
        alpha = self._layer.alpha
        chunk = max(1, CHUNK_ELEMS // (self._duals.shape[1] * self._duals.shape[2]))
        for r0 in range(0, rows.size, chunk):
            rr = rows[r0 : r0 + chunk]
            k = choice[rr]
            vals = np.take_along_axis(Zb[rr] + alpha, self._cols[k], axis=1)
            out[rr] = np.matmul(self._duals[k], vals[:, :, None])[:, :, 0]

    def reconstruct(self, Z: Any, *, scan: bool | None = None, rank_tol: float | None = None,
                    zero_tol: float = 0.0) -> np.ndarray:  # fmt: skip
        r"""Recover the inputs of the outputs ``Z`` with the bank's left inverses.

        Parameters
        ----------
        Z : array_like, shape (m,) or (N, m)
            Outputs :math:`C_\alpha x` of the bank's layer.
        scan : bool, optional
            See :meth:`assign`.
        rank_tol : float, optional
            Rank tolerance of the fall-back solve (default: the bank's).
        zero_tol : float, default 0
            Entries with absolute value at most this count as zero (see :func:`reconstruct`).

        Returns
        -------
        ndarray, shape (n,) or (N, n)

        Raises
        ------
        NotInjectiveError
            If a row is covered by no set and its positive coordinates do not span.
        """
        L = self._layer
        rank_tol = self._rank_tol if rank_tol is None else as_positive(rank_tol, "rank_tol")
        Zb, single = as_outputs(Z, L.m, "Z", as_nonnegative(zero_tol, "zero_tol"))
        mask = Zb > 0
        choice = self._assign(Zb, mask, scan)
        X = np.empty((Zb.shape[0], L.n))
        self._apply(Zb, choice, np.flatnonzero(choice >= 0), X)
        rest = np.flatnonzero(choice < 0)
        if rest.size:
            Xr, failed = solve_active(L.frame.vectors, L.alpha, Zb[rest], mask[rest], rank_tol)
            if failed.size:
                raise not_recoverable(L.frame.vectors, mask, rest[failed], Zb.shape[0], rank_tol, "Z")
            X[rest] = Xr
        return X[0] if single else X
