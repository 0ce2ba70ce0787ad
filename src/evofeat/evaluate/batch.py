"""Repeated runs of the learners that do not learn row by row: one-pass estimators and feature selectors.

Two kinds of registered learner (:func:`evofeat.registry.kind_of`) are not
run by the prequential loop:

- the one-pass estimators ``opid``, ``opide``, ``svm``, ``svm-s``, ``svm-a``
  run on the ``incdec`` scenario (:func:`evofeat.streams.incdec`): the
  C-stage stream of mini-batches is read once, the E-stage train half is fit,
  the E-stage test half is scored (:func:`evofeat.onepass.run_incdec`);
- the streaming feature selectors ``ceofs``, ``cofs``, ``alpha-investing``,
  ``osfs``, ``fast-osfs``, ``saola`` run on the ``feature-stream`` scenario
  (:func:`evofeat.streams.feature_stream`): inside each training fold of a
  stratified k-fold split the selector reads the historical columns, then
  the arriving ones one at a time (:func:`evofeat.streams.run_selector`); a
  classifier trained on the fold's selected columns scores the test fold.

Repeats go through the one repeat runner, :func:`evofeat.evaluate.repeat`
(same joblib machinery, same seeding: repeat ``r`` uses ``seed + r`` for the
scenario draw, the folds and the learner's own seed), with
:func:`run_batch_once` in place of :func:`~evofeat.evaluate.run_once`.

What a repeat reports (the columns of the table):

- ``accuracy`` and ``mistakes``: on the E-stage test half (incdec), or
  pooled over the test folds, every row scored once (feature-stream);
  ``n_scored`` is the number of rows scored;
- ``seconds``: the learner's time (incdec: C-stage + E-stage fit + predict;
  feature-stream: selection, fit + online phase, summed over the folds);
- feature-stream only: ``n_selected`` (mean over the folds),
  ``fit_seconds``, ``online_seconds``; per classifier ``c`` of the
  ``classifier`` scenario parameter (one name or a list, e.g. ``svm,knn3``;
  the first gives ``accuracy`` and ``mistakes``): ``accuracy_c`` pooled over
  the test folds and ``fold_accuracy_c``, the list of each test fold's
  accuracy; ``fold_n_selected``, the features kept in each fold (the
  ``fold_`` lists are summarised over every fold of every repeat). The
  scenario parameter ``select=False`` runs no selector: the classifiers see
  every feature (the reference row of CEOFS's Table 2);
- ``scenario_params``: the scenario parameters used, defaults filled in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from evofeat.base.errors import InputError

__all__ = [
    "BATCH_SCENARIOS",
    "FEATURE_STREAM_DEFAULTS",
    "INCDEC_DIAGNOSTICS",
    "INCDEC_PAPER",
    "check_scenario",
    "fold_predict",
    "incdec_defaults",
    "incdec_once",
    "n_relevant",
    "repeat_batch",
    "run_batch_once",
    "selection_folds",
    "selection_variants",
    "split_selection_errors",
]

#: The scenario each kind of batch learner runs on.
BATCH_SCENARIOS: dict[str, str] = {"onepass": "incdec", "selector": "feature-stream"}
#: Defaults of the feature-stream evaluation (CEOFS's protocol: 80% historical, 10 folds, SVM C=1).
FEATURE_STREAM_DEFAULTS: dict[str, Any] = {
    "historical_fraction": 0.8,
    "folds": 10,
    "classifier": "svm",
}
_INCDEC_KEYS = (
    "d_v",
    "d_s",
    "d_a",
    "batch_size",
    "n_cstage",
    "n_estage",
    "columns",
    "cstage_rows",
    "estage_balanced",
    "seed",
)
_CLASSIFIERS = ("svm", "knn3")


def check_scenario(learner: str, scenario: str | None) -> str:
    """The scenario ``learner`` runs on: ``scenario``, or its kind's default when None.

    >>> check_scenario("opid", None), check_scenario("saola", "feature-stream")
    ('incdec', 'feature-stream')
    >>> check_scenario("ceofs", "incdec")
    Traceback (most recent call last):
    ...
    evofeat.base.errors.InputError: ceofs is a streaming feature selector: it runs on the feature-stream scenario: expected --scenario feature-stream, received --scenario incdec; fix: pass --scenario feature-stream (incdec is for opid, opide, svm, svm-s, svm-a)
    """
    from evofeat.registry import ONEPASS, SELECTORS, kind_of

    kind = kind_of(learner)
    if kind not in BATCH_SCENARIOS:
        from evofeat.evaluate.repeat import check_online_scenario

        check_online_scenario(scenario or "full")
        return scenario or "full"
    want = BATCH_SCENARIOS[kind]
    if scenario is None or scenario == want:
        return want
    what = "one-pass estimator" if kind == "onepass" else "streaming feature selector"
    others = {"incdec": ONEPASS, "feature-stream": SELECTORS}
    hint = (
        f" ({scenario} is for {', '.join(others[scenario])})"
        if scenario in others
        else f" ({scenario} is a row-wise scenario of the online learners such as pa-i)"
    )
    raise InputError(
        f"{learner} is a {what}: it runs on the {want} scenario",
        expected=f"--scenario {want}",
        received=f"--scenario {scenario}",
        fix=f"pass --scenario {want}{hint}",
    )


#: The OPID paper's Table 1 rows of the sets it uses whole: (d_v, d_s, d_a) feature counts, the
#: C-stage rows and the smallest batch size n_i (the E-stage halves). Data, so that the evaluation
#: layer needs nothing from the experiments (tests/experiments/test_spec.py checks them against
#: experiments.opid.SETTINGS).
INCDEC_PAPER: dict[str, dict[str, int]] = {
    "dna": {"d_v": 50, "d_s": 80, "d_a": 50, "n_estage": 60, "n_cstage": 1200, "batch_size": 60},
    "splice": {"d_v": 10, "d_s": 40, "d_a": 10, "n_estage": 40, "n_cstage": 2240, "batch_size": 40},
}


def _classes_and_counts(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.unique(np.asarray(y), return_counts=True)


def incdec_defaults(data: Any, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The incdec parameters used when not ``given``, for a loaded data set (``given`` included).

    For a data set of the OPID paper's Table 1 whose rows it uses whole
    (``dna``, ``splice``), the paper's row: the feature split, the C-stage
    rows and the smallest batch size ``n_i`` (E-stage halves of ``n_i``
    rows). Otherwise: a quarter of the features vanish, half survive, a
    quarter are added (``d_v=0.25, d_s=0.5, d_a=0.25``); E-stage halves of
    ``n_estage = min(100, n // 10)`` rows; the C-stage takes, from every
    class, all the rows the balanced E-stage leaves (``n_cstage``, a
    multiple of the number of classes), in batches of ``batch_size =
    min(100, n_cstage // 10)`` rows. Each default is computed from the
    given values it depends on (``n_cstage`` from ``n_estage``,
    ``batch_size`` from ``n_cstage``).

    >>> from types import SimpleNamespace
    >>> data = SimpleNamespace(name="toy", y=np.arange(1000) % 2)
    >>> incdec_defaults(data)
    {'d_v': 0.25, 'd_s': 0.5, 'd_a': 0.25, 'n_estage': 100, 'n_cstage': 800, 'batch_size': 80}
    >>> incdec_defaults(data, {"n_estage": 50})["n_cstage"]
    900
    """
    from evofeat.streams.incdec import default_sizes

    given = dict(given or {})
    paper = INCDEC_PAPER.get(str(getattr(data, "name", "")))
    if paper is not None:
        return {**paper, **given}
    return default_sizes(data.y, given)


def _unknown(
    what: str, keys: list[str], valid: tuple[str, ...] | list[str], option: str
) -> InputError:
    return InputError(
        f"unknown {what} {', '.join(repr(k) for k in keys)}",
        expected="one of " + ", ".join(valid),
        fix=f"check the {option} names",
    )


def _dense(X: Any) -> np.ndarray:
    return np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)


def _run_incdec(
    learner: str, data: Any, params: dict[str, Any], sp: dict[str, Any], seed: int
) -> dict[str, Any]:
    from evofeat.onepass import make_learner, run_incdec
    from evofeat.streams.incdec import incdec

    bad = [k for k in sp if k not in _INCDEC_KEYS]
    if bad:
        raise _unknown("incdec parameter", bad, _INCDEC_KEYS, "--scenario-param")
    if "n_survived" in params:
        raise InputError(
            "n_survived is set by the incdec scenario",
            expected="no --param n_survived",
            received=f"n_survived={params['n_survived']}",
            fix="set --scenario-param d_s=... instead",
        )
    given = {k: v for k, v in sp.items() if k != "seed"}
    if any(k in given for k in ("d_v", "d_s", "d_a")) and not all(
        k in given for k in ("d_v", "d_s", "d_a")
    ):
        raise InputError(
            "give all three of d_v, d_s, d_a or none",
            expected="counts summing to the features, or fractions summing to 1",
            received=", ".join(f"{k}={v}" for k, v in given.items()),
            fix="e.g. --scenario-param d_v=0.25 --scenario-param d_s=0.5 --scenario-param d_a=0.25",
        )
    used = incdec_defaults(data, given)
    draw_seed = int(sp.get("seed", seed))
    sc = incdec(data.X, data.y, **used, seed=draw_seed)
    # the learner's seed: the user's --param seed, else the repeat's
    learner_seed = None if "seed" in params else seed
    model = make_learner(learner, sc.d_s, learner_seed, **params)
    out = run_incdec(model, sc)
    n_test = int(out["n_test"])
    return {
        "accuracy": out["accuracy"],
        "mistakes": int(round((1.0 - out["accuracy"]) * n_test)),
        "n_scored": n_test,
        "seconds": out["seconds"],
        **{k: out[k] for k in ("d_v", "d_s", "d_a", "n_cstage", "n_train")},
        "scenario_params": {**used, "seed": draw_seed},
    }


def _classifier(name: str) -> Any:
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    if name == "svm":
        return make_pipeline(StandardScaler(), SVC(C=1.0, kernel="rbf", gamma="scale"))
    return make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=3))


def selection_folds(
    stream: Any,
    y: np.ndarray,
    make_selector: Callable[[], Any] | None,
    *,
    folds: int,
    seed: int | None,
) -> Iterator[tuple[np.ndarray, np.ndarray, Any, Any]]:
    """The feature-stream protocol's fold loop: ``(train, test, selector, run)`` per fold.

    ``stream`` is the split of the features into historical and arriving
    ones (:func:`~evofeat.streams.feature_stream.feature_stream`); rows are
    cut into stratified folds (shuffled with ``seed``); in each fold a fresh selector
    from ``make_selector()`` runs on the training rows only
    (:func:`~evofeat.streams.feature_stream.run_selector`), and ``run.columns``
    are the features it keeps. ``make_selector=None`` selects nothing: the
    selector and the run are None (a reference that uses every feature).

    >>> import numpy as np
    >>> from evofeat.registry import make
    >>> from evofeat.streams.feature_stream import feature_stream
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(40, 6)), np.repeat([-1, 1], 20)
    >>> fs = feature_stream(X, y, historical_fraction=0.5, seed=0)
    >>> it = selection_folds(fs, y, lambda: make("cofs"), folds=2, seed=0)
    >>> [len(test) for _, test, _, _ in it]
    [20, 20]
    """
    from evofeat.streams.feature_stream import run_selector

    for train, test in _stratified_folds(y, folds, seed):
        if make_selector is None:
            yield train, test, None, None
            continue
        selector = make_selector()
        yield train, test, selector, run_selector(selector, stream, train)


def _stratified_folds(y: np.ndarray, folds: int, seed: int | None) -> Iterator[Any]:
    """(train, test) of a shuffled stratified k-fold split: the feature-stream protocol's folds."""
    from sklearn.model_selection import StratifiedKFold

    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    return cv.split(np.zeros((len(y), 1)), y)  # type: ignore[no-any-return]


def selection_variants(
    stream: Any,
    y: np.ndarray,
    make_selector: Callable[[], Any],
    variants: Sequence[Mapping[str, Any]],
    *,
    folds: int,
    seed: int | None,
) -> Iterator[tuple[np.ndarray, np.ndarray, list[np.ndarray]]]:
    """:func:`selection_folds` for parameters that act in the online phase only (CEOFS's θ2).

    In each fold the selector fits the historical block of the training rows
    once; a copy of it per entry of ``variants`` (``set_params(**variant)``)
    then reads the arriving columns. Yields ``(train, test, columns)`` with
    the kept columns of each variant, in order.

    >>> from evofeat.registry import make
    >>> from evofeat.streams.feature_stream import feature_stream
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(40, 6)), np.repeat([-1, 1], 20)
    >>> fs = feature_stream(X, y, historical_fraction=0.5, seed=0)
    >>> it = selection_variants(fs, y, lambda: make("ceofs"), [{"theta2": 0.3}, {"theta2": 0.8}], folds=2, seed=0)
    >>> [len(cols) for _, _, cols in it]
    [2, 2]
    """
    import copy

    for train, test in _stratified_folds(y, folds, seed):
        base = make_selector()
        base.fit(stream.X[np.ix_(train, stream.historical)], stream.y[train])
        kept = []
        for params in variants:
            sel = copy.deepcopy(base).set_params(**params)
            for j in stream.arriving:
                sel.add_feature(stream.X[train, j])
            kept.append(stream.order[sel.get_support(indices=True)])
        yield train, test, kept


def fold_predict(
    classifier: str, X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray
) -> np.ndarray:
    """``classifier`` (``"svm"``: RBF SVM, ``"knn"``: 3-NN, both on standardised columns) trained
    on a fold and predicting its test rows; with no column, the training majority class.

    >>> fold_predict("knn", np.zeros((4, 0)), np.array([1, 1, -1, 1]), np.zeros((2, 0))).tolist()
    [1, 1]
    """
    if X_train.shape[1] == 0:
        vals, cnt = np.unique(y_train, return_counts=True)
        return np.full(X_test.shape[0], vals[np.argmax(cnt)])
    return np.asarray(_classifier(classifier).fit(X_train, y_train).predict(X_test))


def n_relevant(X: np.ndarray, y: np.ndarray, test: str = "fisher-z", alpha: float = 0.05) -> int:
    """How many columns of ``X`` depend on ``y`` alone (a marginal test at ``alpha``).

    >>> rng = np.random.default_rng(0); y = np.repeat([-1.0, 1.0], 50)
    >>> n_relevant(np.column_stack([y + rng.normal(size=100), rng.normal(size=100)]), y)
    1
    """
    from evofeat.selection._base import marginal_association

    return int(marginal_association(X, np.asarray(y, dtype=float), test, alpha)[1].sum())


def _run_feature_stream(
    learner: str, data: Any, params: dict[str, Any], sp: dict[str, Any], seed: int
) -> dict[str, Any]:
    from evofeat.registry import make
    from evofeat.streams.feature_stream import feature_stream

    valid = (*FEATURE_STREAM_DEFAULTS, "select", "seed")
    bad = [k for k in sp if k not in valid]
    if bad:
        raise _unknown("feature-stream parameter", bad, valid, "--scenario-param")
    used = {**FEATURE_STREAM_DEFAULTS, **{k: v for k, v in sp.items() if k != "seed"}}
    given = used["classifier"]
    classifiers = list(given) if isinstance(given, list | tuple) else [given]
    if not classifiers or any(c not in _CLASSIFIERS for c in classifiers):
        raise InputError(
            "unknown classifier",
            expected=" or ".join(_CLASSIFIERS) + ", or a list of them (svm,knn3)",
            received=repr(given),
            fix="pass --scenario-param classifier=svm",
        )
    folds = used["folds"]
    y = np.asarray(data.y)
    _, counts = _classes_and_counts(y)
    if not (isinstance(folds, int) and not isinstance(folds, bool) and 2 <= folds <= counts.min()):
        smallest = int(counts.min())
        raise InputError(
            "bad number of folds",
            expected=f"an integer from 2 to {smallest} (the rows of the smallest class)",
            received=repr(folds),
            fix=f"pass e.g. --scenario-param folds={min(5, smallest)}"
            if smallest >= 2
            else "use a data set with at least 2 rows of every class",
        )
    if not isinstance(used.get("select", True), bool):
        raise InputError(
            "bad select",
            expected="true (run the selector) or false (every feature: the reference)",
            received=repr(used["select"]),
            fix="pass --scenario-param select=false, or leave it out",
        )
    split_seed = sp.get("seed", seed)
    X = _dense(data.X)

    def make_selector() -> Any:
        selector = make(learner, **params)
        if "seed" in selector.get_params() and "seed" not in params:
            selector.set_params(seed=seed)
        return selector

    wrong = dict.fromkeys(classifiers, 0)
    fold_acc: dict[str, list[float]] = {c: [] for c in classifiers}
    n_selected, fit_s, online_s = [], 0.0, 0.0
    stream = feature_stream(X, y, historical_fraction=used["historical_fraction"], seed=split_seed)
    every = np.arange(X.shape[1])
    for train, test, _, run in selection_folds(
        stream, y, make_selector if used.get("select", True) else None, folds=folds, seed=split_seed
    ):
        chosen = every if run is None else np.asarray(run.columns, dtype=np.int64)
        for c in classifiers:
            pred = fold_predict(c, X[np.ix_(train, chosen)], y[train], X[np.ix_(test, chosen)])
            wrong[c] += int(np.sum(pred != y[test]))
            fold_acc[c].append(float(np.mean(pred == y[test])))
        n_selected.append(int(chosen.size))
        fit_s += run.fit_seconds if run else 0.0
        online_s += run.online_seconds if run else 0.0
    n = int(y.shape[0])
    return {
        "accuracy": 1.0 - wrong[classifiers[0]] / n,
        "mistakes": wrong[classifiers[0]],
        "n_scored": n,
        "seconds": fit_s + online_s,
        "n_selected": float(np.mean(n_selected)),
        **{f"accuracy_{c}": 1.0 - wrong[c] / n for c in classifiers},
        **{f"fold_accuracy_{c}": fold_acc[c] for c in classifiers},
        "fold_n_selected": [float(k) for k in n_selected],
        "fit_seconds": fit_s,
        "online_seconds": online_s,
        "n_historical": int(stream.historical.size),
        "n_arriving": int(stream.arriving.size),
        "scenario_params": {**used, "seed": split_seed},
    }


def run_batch_once(
    learner: str,
    dataset: Any,
    scenario: str | None = None,
    *,
    params: Mapping[str, Any] | None = None,
    scenario_params: Mapping[str, Any] | None = None,
    preprocess: str = "none",
    repeat: int = 0,
    seed: int = 0,
) -> dict[str, Any]:
    """Repeat ``repeat`` of a one-pass estimator (incdec) or a selector (feature-stream).

    ``dataset`` is a registry name or path (loaded with ``preprocess``) or a
    loaded :class:`~evofeat.datasets.Dataset`. The scenario is drawn with
    ``seed + repeat`` (unless ``scenario_params`` fixes a ``seed``), which
    also seeds the folds and the learner (unless ``params`` gives one).

    >>> from types import SimpleNamespace
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 6)); y = np.where(X[:, 0] + X[:, 4] > 0, 1, -1)
    >>> data = SimpleNamespace(name="toy", X=X, y=y)
    >>> out = run_batch_once("saola", data, scenario_params={"folds": 3})
    >>> out["n_scored"], out["mistakes"] == round((1 - out["accuracy"]) * 120)
    (120, True)
    """
    from evofeat.evaluate.repeat import load_cached
    from evofeat.registry import kind_of

    scenario = check_scenario(learner, scenario)
    kind = kind_of(learner)
    if kind not in BATCH_SCENARIOS:
        raise InputError(
            f"{learner} is an online learner",
            expected="a one-pass estimator or a selector",
            received=learner,
            fix="run it with evofeat.evaluate.repeat (the prequential loop)",
        )
    data = load_cached(dataset, preprocess) if isinstance(dataset, str) else dataset
    r_seed = int(seed or 0) + int(repeat)
    run = _run_incdec if kind == "onepass" else _run_feature_stream
    return run(learner, data, dict(params or {}), dict(scenario_params or {}), r_seed)


def repeat_batch(
    learner: str,
    params: Mapping[str, Any] | None,
    data: Any,
    scenario: str | None = None,
    scenario_params: Mapping[str, Any] | None = None,
    *,
    repeats: int = 1,
    seed: int = 0,
    n_jobs: int = 1,
    preprocess: str = "none",
    progress: Callable[[int, int], None] | None = None,
    tally: Any = None,
) -> Any:
    """:func:`run_batch_once` for ``repeat = 0 .. repeats-1``, through :func:`evofeat.evaluate.repeat`.

    Returns one row per repeat (see the module docstring for the columns), or
    ``tally`` (a :class:`~evofeat.evaluate.repeat.RepeatTally`) with every
    repeat folded into it; ``progress(done, repeats)`` is called as each
    repeat finishes.

    >>> df = repeat_batch("svm-s", {"cv": 3}, "german", "incdec", {"n_estage": 40}, repeats=2)
    >>> len(df), sorted(df["repeat"]), bool(df["accuracy"].between(0, 1).all())
    (2, [0, 1], True)
    """
    from evofeat.evaluate.repeat import repeat

    scenario = check_scenario(learner, scenario)
    return repeat(
        learner,
        data,
        scenario,
        repeats=repeats,
        n_jobs=n_jobs,
        runner=run_batch_once,
        params=dict(params or {}),
        scenario_params=dict(scenario_params or {}),
        seed=seed,
        preprocess=preprocess,
        progress=progress,
        tally=tally,
    )


def split_selection_errors(
    X: np.ndarray,
    y: np.ndarray,
    fractions: tuple[float, ...],
    repeat: int,
    *,
    ranking: Callable[[np.ndarray, np.ndarray, int], list[int]] | None = None,
    knn: int = 5,
) -> dict[str, list[float]]:
    """Select on the first half of a permutation, classify the second (the OFS paper's Table 5).

    Repeat ``r`` permutes the rows with ``numpy.random.default_rng(r)``. For
    each fraction, k = max(1, round(fraction d)) features are chosen on the
    first half, by ``ranking(X, y, k_max)`` (a batch ranking computed once,
    e.g. mRMR) or, when ``ranking`` is None, by the registry's ``ofs`` with
    ``budget_count=k`` (one online pass). Two classifiers learn the first
    half restricted to those columns and score the second: OGD (``ofs`` with
    ``budget=1``, one online pass, then fixed; a score of 0 is a mistake) and
    scikit-learn's ``knn``-nearest neighbours.

    >>> rng = np.random.default_rng(0); X = rng.normal(size=(40, 10)); y = np.sign(X[:, 0] + 0.1)
    >>> out = split_selection_errors(X, y, (0.1, 0.5), 0)
    >>> sorted(out), len(out["ogd_error"])
    (['knn_error', 'ogd_error', 'select_seconds'], 2)
    """
    import time

    from sklearn.neighbors import KNeighborsClassifier

    from evofeat.base.prequential import prequential
    from evofeat.registry import make
    from evofeat.streams import full

    order = np.random.default_rng(repeat).permutation(len(y))
    X, y = X[order], y[order]
    half, d = len(y) // 2, X.shape[1]
    train, test, y_train, y_test = X[:half], X[half:], y[:half], y[half:]
    out: dict[str, list[float]] = {"ogd_error": [], "knn_error": [], "select_seconds": []}
    t0 = time.perf_counter()
    ranked = ranking(train, y_train, max(1, round(max(fractions) * d))) if ranking else []
    rank_seconds = time.perf_counter() - t0
    for frac in fractions:
        k = max(1, round(frac * d))
        t0 = time.perf_counter()
        if ranking:
            cols = np.array(ranked[:k])
        else:
            selector = make("ofs", budget_count=k)
            prequential(selector, full(train, y_train, list(range(d))))
            cols = np.sort(np.array(selector.selected_features_, dtype=np.int64))
        out["select_seconds"].append(rank_seconds if ranking else time.perf_counter() - t0)
        ogd = make("ofs", budget=1.0)
        prequential(ogd, full(train[:, cols], y_train, list(range(cols.size))))
        scores = test[:, cols] @ np.array([ogd.coef_.get(j, 0.0) for j in range(cols.size)])
        out["ogd_error"].append(float(np.mean(np.sign(scores) != y_test)))
        model = KNeighborsClassifier(n_neighbors=knn).fit(train[:, cols], y_train)
        out["knn_error"].append(float(np.mean(model.predict(test[:, cols]) != y_test)))
    return out


#: Diagnostics of the two stages of OPID (the paper's E-stage investigation): ``cstage`` scores
#: the C-stage model alone (argmax of Z = X_s W_s*), ``opid-z`` fits OPID on the survived columns.
INCDEC_DIAGNOSTICS = ("cstage", "opid-z")


def incdec_once(
    learner: str,
    X: np.ndarray,
    y: np.ndarray,
    scenario: Mapping[str, Any],
    seed: int,
    params: Mapping[str, Any] | None = None,
    attributes: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Draw an incdec scenario (``scenario``: d_v, d_s, d_a, batch_size, n_cstage, n_estage) with
    ``seed``, fit ``learner`` (or a diagnostic of :data:`INCDEC_DIAGNOSTICS`) and score it.

    Returns :func:`evofeat.onepass.run_incdec`'s dict (a diagnostic: its accuracy), with the
    fitted model's ``attributes`` (attribute -> key; a tuple's first item) added when present.

    >>> rng = np.random.default_rng(0); X = rng.random((400, 12)); y = np.where(X[:, 4] > 0.5, 1, -1)
    >>> sc = {"d_v": 3, "d_s": 6, "d_a": 3, "batch_size": 20, "n_cstage": 200, "n_estage": 40}
    >>> out = incdec_once("opid", X, y, sc, 0, attributes={"weights_": "w1"})
    >>> out["accuracy"] > 0.7, "w1" in out, incdec_once("cstage", X, y, sc, 0)["accuracy"] > 0.7
    (True, True, True)
    """
    from evofeat.onepass import make_learner, run_incdec
    from evofeat.streams.incdec import incdec

    sc = incdec(X, y, **scenario, seed=seed)
    extra = dict(params or {})
    if learner in INCDEC_DIAGNOSTICS:
        return _incdec_diagnostic(learner, sc, seed, extra)
    model = make_learner(learner, sc.d_s, seed, **extra)
    out: dict[str, Any] = run_incdec(model, sc)
    for attr, key in (attributes or {}).items():
        if hasattr(model, attr):
            val = getattr(model, attr)
            out[key] = float(val[0] if isinstance(val, tuple) else val)
    return out


def _incdec_diagnostic(kind: str, sc: Any, seed: int, extra: dict[str, Any]) -> dict[str, Any]:
    from evofeat.onepass import OPID

    model = OPID(n_survived=sc.d_s, seed=seed, **extra)
    Xtr, Xte = sc.X_train[:, : sc.d_s], sc.X_test[:, : sc.d_s]
    model.fit(Xtr, sc.y_train, cstage=sc.batches)
    if kind == "opid-z":
        return {"accuracy": float(model.score(Xte, sc.y_test))}
    pred = model.cstage_classes_[(Xte @ model.coef_cstage_).argmax(1)]
    return {"accuracy": float(np.mean(pred == sc.y_test))}
