"""``auto``: the two paths agree, the mixture follows its rule and bound, state round-trips, bad input is refused."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from evofeat.ensemble._auto import mix_update

from evofeat import io
from evofeat.base import InputError
from evofeat.ensemble.auto import Auto
from evofeat.evaluate import prequential
from evofeat.streams import evolvable, haphazard
from evofeat.streams.stream import Stream
from evofeat.testing import check_learner
from reference.auto import member_scores, mixture_reference


def _data(n: int = 400, d: int = 6, seed: int = 0, noise: float = 0.3) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * np.array([1.0, 10.0, 0.1, 3.0, 1.0, 50.0])[:d]
    w = rng.normal(size=d) / np.maximum(np.abs(X).mean(axis=0), 1e-9)
    y = np.where(X @ w + noise * rng.normal(size=n) > 0.3, 1, -1)
    return X, y


def _stream(kind: str = "haphazard", seed: int = 0) -> Stream:
    X, y = _data(seed=seed)
    if kind == "haphazard":
        return haphazard(X, y, p=0.6, seed=seed)
    return evolvable(X, y, seed=seed)


@pytest.mark.parametrize("share", [False, True])
@pytest.mark.parametrize("kind", ["haphazard", "evolvable"])
def test_dict_path_gives_the_compiled_loops_scores(kind: str, share: bool) -> None:
    stream = _stream(kind)
    loop = prequential(Auto(share=share), stream, keep_predictions=True)
    model = Auto(share=share)
    scores, probas = [], []
    for x, y in stream.to_dicts():
        s = model.decision_one(x)
        scores.append(0.0 if s is None else s)
        p = model.predict_proba_one(x)
        probas.append(0.5 if p is None else p[1])
        model.learn_one(x, int(y))
    np.testing.assert_array_equal(np.array(scores), loop.scores)
    np.testing.assert_allclose(np.array(probas), 1.0 / (1.0 + np.exp(-loop.scores)), atol=1e-15)
    again = Auto(share=share)
    prequential(again, stream)
    assert again.weights_ == model.weights_


@pytest.mark.parametrize("share", [False, True])
def test_scores_are_the_numpy_mixture_of_the_members_run_alone(share: bool) -> None:
    X, y = _data(seed=3)
    X[np.random.default_rng(3).random(X.shape) < 0.3] = np.nan  # absent entries
    model = Auto(share=share)
    members = member_scores(model, X, y.astype(float))
    got = prequential(
        model, Stream.from_dense(X, y, [f"f{j}" for j in range(X.shape[1])]), keep_predictions=True
    ).scores
    np.testing.assert_allclose(got, mixture_reference(members, y, share), rtol=1e-9, atol=1e-9)


def test_a_member_that_is_always_wrong_loses_its_weight() -> None:
    w = np.log(np.full(3, 1.0 / 3.0))
    for _ in range(50):  # member 2 gives the true label probability 0.01 on every row
        mix_update(w, -np.log(np.array([0.6, 0.7, 0.01])), 0.0)
    weights = np.exp(w)
    assert weights[2] < 1e-80
    assert weights[1] > 0.99  # and the best member takes the weight
    assert math.isclose(weights.sum(), 1.0)


def test_a_member_that_learns_nothing_loses_its_weight_on_a_real_stream() -> None:
    # ftrl with a tiny step predicts p ~ 1/2 on every row (log loss ~ ln 2 each); the others learn
    model = Auto(members=("ftrl(alpha=1e-9, l1=0.0)", "ftrl", "adagrad"))
    prequential(model, _stream("haphazard"))
    weights = list(model.weights_.values())
    assert weights[0] < 1e-6
    assert max(weights[1:]) > 0.5


@pytest.mark.parametrize("share", [False, True])
@pytest.mark.parametrize("noise", [0.3, 30.0])
def test_cumulative_log_loss_is_within_the_bound_of_the_best_member(
    share: bool, noise: float
) -> None:
    X, y = _data(n=600, seed=5, noise=noise)  # noise 30: labels nearly random, members overfit
    stream = haphazard(X, y, p=0.5, seed=5)
    model = Auto(members=("ftrl", "adagrad", "nag", "pa-i(fit_intercept=True)"), share=share)
    res = prequential(model, stream, keep_predictions=True)
    state = model._state
    K, T = 4, stream.n_rows
    best = float(np.min(state.member_loss))
    bound = best + math.log(K) + (math.log(T + 1) if share else 0.0)
    # the mixture's own loss, from the probabilities it predicted
    p_true = 1.0 / (1.0 + np.exp(-stream.y * res.scores))
    mixture_loss = float(-np.log(p_true).sum())
    assert mixture_loss == pytest.approx(state.loss, rel=1e-9)
    assert res.cumulative_loss == pytest.approx(state.loss, rel=1e-9)
    assert state.loss <= bound + 1e-9
    if not share:  # the Bayesian mixture's loss is exactly -ln(mean_i exp(-L_i))
        exact = -np.log(np.mean(np.exp(-(np.asarray(state.member_loss) - best)))) + best
        assert state.loss == pytest.approx(exact, rel=1e-9)


def test_model_file_and_pickle_continue_exactly(tmp_path) -> None:
    stream = _stream("evolvable")
    rows = list(stream.to_dicts())
    model = Auto()
    for x, y in rows[:300]:
        model.learn_one(x, int(y))
    path = io.save(model, tmp_path / "auto.npz")
    for other in (io.load(path), pickle.loads(pickle.dumps(model))):
        assert other.weights_ == model.weights_
        twin = pickle.loads(pickle.dumps(model))
        for x, y in rows[300:]:
            assert other.predict_proba_one(x) == twin.predict_proba_one(x)
            other.learn_one(x, int(y))
            twin.learn_one(x, int(y))
        assert other.weights_ == twin.weights_


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"members": ()}, "at least one member"),
        ({"members": ("opid",)}, "not an online learner"),
        ({"members": ("stsd-regressor",)}, "cannot be a member"),
        ({"members": ("ofs",)}, "cannot be a member"),
        ({"members": ("ftrl(0.3)",)}, "not a learner spec"),
        ({"members": ("nope",)}, "unknown learner"),
        ({"members": ("bogus:ftrl",)}, "unknown online scaling"),
        ({"members": (3,)}, "learner spec"),
        ({"share": "yes"}, "share"),
    ],
)
def test_bad_parameters_are_refused(params: dict, match: str) -> None:
    with pytest.raises(InputError, match=match):
        Auto(**params).learn_one({"a": 1.0}, 1)


def test_labels_other_than_binary_are_refused() -> None:
    model = Auto()
    with pytest.raises(InputError, match="binary classifier"):
        model.learn_one({"a": 1.0}, 2)
    with pytest.raises(InputError, match="binary classifier"):
        model.learn_one({"a": 1.0}, 0.5)
    assert model.n_learned_ == 0


def test_run_and_compare_default_to_auto() -> None:
    from click.testing import CliRunner

    from evofeat import cli

    run = CliRunner().invoke(cli.main, ["run", "--dataset", "german", "--repeats", "1"])
    assert run.exit_code == 0, run.output
    assert run.output.startswith("auto on german")
    both = CliRunner().invoke(cli.main, ["compare", "--dataset", "german", "--repeats", "2"])
    assert both.exit_code == 0, both.output
    assert "auto" in both.output and "ftrl" in both.output


def test_demo_shows_the_majority_rate_then_auto_first(tmp_path) -> None:
    from evofeat.demo import DEMO_DATASETS, LABELS, MAJORITY, run_demo

    table = run_demo(tmp_path, repeats=1)
    rows = [line.split("|")[1:3] for line in table.splitlines() if line.startswith("| ")][1:]
    for ds in DEMO_DATASETS:
        mine = [name.strip() for d, name in rows if d.strip() == ds]
        assert mine[:2] == [MAJORITY, LABELS["auto"]]
    german = next(line for line in table.splitlines() if MAJORITY in line and "german" in line)
    assert "0.700" in german  # german: 700 of its 1000 rows are the class -1


def test_a_loaded_state_is_checked_member_by_member(tmp_path) -> None:
    model = Auto(members=("ftrl", "zscore:nag"))
    for x, y in list(_stream("haphazard").to_dicts())[:50]:
        model.learn_one(x, int(y))
    loaded = io.load(io.save(model, tmp_path / "auto.npz"))
    assert loaded._members_consistent() == ""
    loaded._state.members[0].alpha = 0.5  # not what ftrl's parameters set (alpha=0.1)
    assert "member 0's alpha" in loaded._members_consistent()
    loaded._state.members[0].alpha = 0.1
    loaded._state.log_weight[0] = 0.0  # weights summing to more than 1
    assert "do not sum to 1" in loaded._members_consistent()


def _mixed(model: Auto, x: dict) -> float:
    """The mixture's score of ``x`` from each member's own score (its view, scaled alone)."""
    s = np.array([v.decision_one(x) for v in model.members_])
    log_w = np.asarray(model._state.log_weight)
    plus = np.logaddexp.reduce(log_w - np.logaddexp(0.0, -s))
    minus = np.logaddexp.reduce(log_w - np.logaddexp(0.0, s))
    return float(plus - minus)


@pytest.mark.parametrize("scaling", ["zscore", "quantile"])
def test_members_scale_a_row_once_only_while_their_statistics_are_equal(scaling: str) -> None:
    """Members behind equal scalings take the first one's scaled row (the default's pairs); a
    state whose members' statistics differ (edited, or loaded so) scales each on its own."""
    from evofeat.ensemble._auto import AutoCore

    X, y = _data(seed=4)
    names = [f"f{j}" for j in range(X.shape[1])]
    rows = [dict(zip(names, r.tolist(), strict=True)) for r in X]
    model = Auto(members=(f"{scaling}:ftrl", f"{scaling}:nag", "nag"))
    for x, label in zip(rows[:300], y[:300].tolist(), strict=True):
        model.learn_one(x, label)
    # the members alone: in a copy (a member core keeps the last row it scaled, so the views of
    # the mixture's own members would be handed the row the mixture's members were scaled with)
    alone = pickle.loads(pickle.dumps(model))
    for x in rows[300:320]:
        assert model.decision_one(x) == pytest.approx(_mixed(alone, x), abs=1e-12)
    fields = model._state._asdict()
    own = "m1_mean" if scaling == "zscore" else "m1_recent"
    fields[own] = np.asarray(fields[own]) * 2.0 + 1.0  # member 1 now scales differently
    model._state = AutoCore(**fields)
    alone = pickle.loads(pickle.dumps(model))
    for x in rows[300:320]:  # (with member 0's scaled row, member 1's score would differ)
        assert model.decision_one(x) == pytest.approx(_mixed(alone, x), abs=1e-12)


@pytest.mark.parametrize("on", [None, True, False])
def test_fit_intercept_is_each_members_or_set_for_all(on: bool | None, tmp_path) -> None:
    """``None``: each member keeps its own (the default members learn a bias); ``True`` /
    ``False``: set on every member, scaled or not; model files keep it."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((300, 4))
    y = np.where(rng.random(300) < 0.8, 1, -1)  # only a bias beats a coin
    model = Auto(members=("pa-i", "zscore:pa-i", "nag"), fit_intercept=on)
    res = prequential(model, Stream.from_dense(X, y))
    inner = [getattr(m, "_inner", lambda m=m: m)() for m in model.members_]
    want = [False, False, True] if on is None else [on] * 3
    assert [m.fit_intercept for m in inner] == want
    assert [m.intercept_ != 0.0 for m in inner] == want
    assert ("fit_intercept" in repr(model)) is (on is not None)
    assert (res.accuracy > 0.7) is (on is not False), res.accuracy
    loaded = io.load(io.save(model, tmp_path / "auto.evofeat"), expected="auto")
    assert loaded.get_params() == model.get_params()
    with pytest.raises(InputError, match="fit_intercept must be a bool"):
        Auto(fit_intercept=1).learn_one({"a": 1.0}, 1)


@pytest.mark.parametrize("on", [True, False])
def test_generic_checks_with_the_bias_set(on: bool) -> None:
    report = check_learner(Auto(members=("nag", "zscore:ftrl"), fit_intercept=on))
    assert not report.failed, report
