"""The two-copy stage honours ``near=`` (issue 30): its MILP looks first for a pair whose first point is near it.

The search near the point is the same model with the first copy's input kept within NEAR_BOX (normalised) of
the point; a proof of injectivity still comes only from the unconstrained model.
"""

import numpy as np

import relu_frames_nb as rf
from relu_frames_nb._util.budget import Budget
from relu_frames_nb.network.pieces import NEAR_BOX
from relu_frames_nb.network.two_copy import check_two_copies
from tests._region_oracle import collide
from tests.test_network_exact import _weights


def test_the_two_copy_pair_starts_near_the_given_point():
    ws = _weights(0, 2, 3, 5, 8)  # not injective on the box (test_network_exact)
    K = rf.Box([-1, -1], [1, 1])
    plain = check_two_copies(ws, K, budget=Budget(60), verify_pair=lambda x, y: collide(ws, x, y))
    assert plain.status == "not injective"
    x, y = plain.pair
    assert np.max(np.abs(x - y)) > 2 * NEAR_BOX  # the other point of the pair is far from the first
    # near the pair's second point: a pair whose first point lies there (without near=, the first point is x)
    found = check_two_copies(ws, K, budget=Budget(60), verify_pair=lambda x, y: collide(ws, x, y), near=y)
    assert found.status == "not injective" and "near the given point" in found.text
    p, q = found.pair
    assert np.max(np.abs(p - y)) <= NEAR_BOX * (1 + 1e-9) and collide(ws, p, q)
    assert np.max(np.abs(p - x)) > NEAR_BOX


def test_an_injective_network_is_still_proved_with_near():
    # 2 -> 8 -> 8, injective on the box (test_network_exact): the search near the point finds nothing, the proof holds
    ws = _weights(1, 2, 2, 6, 10)
    K = rf.Box([-1, -1], [1, 1])
    res = check_two_copies(ws, K, budget=Budget(60), near=np.array([0.3, -0.2]))
    assert res.status == "injective" and res.far_bound is not None and res.far_bound < 5e-4
    # a point outside the domain's box leaves the search out
    res = check_two_copies(ws, K, budget=Budget(60), near=np.array([3.0, 0.0]))
    assert res.status == "injective"


def test_a_coordinate_left_open_does_not_end_the_far_pair_search(monkeypatch):
    # the solver of the first coordinate stops with nothing (as at its time limit): before, the search ended there,
    # with the rest of its time unused; now the other coordinates are asked, and the first again in a second round
    import relu_frames_nb.network.pieces as pieces

    real, calls = pieces.solve_model, []

    def first_gives_nothing(*args, **kwargs):
        calls.append(1)
        return None if len(calls) == 1 else real(*args, **kwargs)

    monkeypatch.setattr(pieces, "solve_model", first_gives_nothing)
    ws = _weights(0, 2, 3, 5, 8)
    res = check_two_copies(ws, rf.Box([-1, -1], [1, 1]), budget=Budget(60), verify_pair=lambda x, y: collide(ws, x, y))
    assert res.status == "not injective" and collide(ws, *res.pair) and len(calls) >= 2
    # an injective network: the coordinate left open is asked again, and the proof still needs every coordinate
    calls.clear()
    ws = _weights(1, 2, 2, 6, 10)
    res = check_two_copies(ws, rf.Box([-1, -1], [1, 1]), budget=Budget(60))
    assert res.status == "injective" and res.far_bound < 5e-4
