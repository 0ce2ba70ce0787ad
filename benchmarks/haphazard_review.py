"""The haphazard-inputs review's benchmark: evofeat's learners beside the field's methods.

Agarwal et al., "Online learning under haphazard input conditions: a comprehensive
review and analysis" (2024) compare nine methods on data sets whose features are each
available with probability p in every row. This script runs that protocol with the
review's own package (``haphazard`` 1.2.8 on the package index): its loaders and its
masks (``scheme="probabilistic"``, ``mask_seed=42``, the package's default, one mask per
data set and p), raw unscaled values, test-then-train over every row, balanced accuracy
and AUROC. evofeat's learners see the same rows with an absent feature as NaN
(``Stream.from_dense``: absent, never 0); the package's models see the same rows through
the package's own iterator. The review's published table (its streams were drawn by its
own code with seed 2023, so the masks differ from the package's) is shown beside them.

    pip install -e .            # in a separate venv: the peers pull in PyTorch
    pip install torch==2.13.0 && pip install --no-deps haphazard==1.2.8 && pip install statsmodels
    export EVOFEAT_DATA=../shared/datasets
    nice -n 19 python benchmarks/haphazard_review.py                 # everything, resumable
    python benchmarks/haphazard_review.py --peers none               # evofeat only (a minute)
    python benchmarks/haphazard_review.py --datasets wdbc --p 0.5    # one cell
    python benchmarks/haphazard_review.py --render                   # the report from the JSONL
    python benchmarks/haphazard_review.py --demo     # run `evofeat demo` for the Targets, render

Every finished (streams, data set, p, method, run) is appended to
``results/haphazard_review.jsonl`` as soon as it is done, so a killed run loses
nothing finished and a rerun skips what is there. Peers run seed by seed (all cells
with seed 0 first), the fast ones first, so a partial run still covers every cell with
them. ``--fresh`` starts over.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results"

#: the review's 13 data sets that can run here (its other six have no copy here).
DATASETS = (
    "wpbc",
    "ionosphere",
    "wdbc",
    "australian",
    "wbc",
    "diabetes_f",
    "german",
    "ipd",
    "svmguide3",
    "krvskp",
    "spambase",
    "magic04",
    "a8a",
)
#: the 11 smaller ones (the two large ones run only the fast peer, OLVF).
SMALL = DATASETS[:11]
PROBS = (0.25, 0.5, 0.75)

#: evofeat's contenders, fixed before the run: (label, registered name, parameters).
#: A name that is not registered (``auto``, built on another branch) is skipped with a note.
#: The last two are ftrl behind online scaling (``evofeat.preprocessing.OnlineScaled``:
#: statistics from the values seen so far, absent features left absent; its defaults).
CONTENDERS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("ftrl", "ftrl", {"fit_intercept": True}),
    ("adagrad", "adagrad", {"fit_intercept": True}),
    ("pa-i", "pa-i", {"fit_intercept": True}),
    ("zscore+ftrl", "online-zscore+ftrl", {"fit_intercept": True}),
    ("quantile+ftrl", "online-quantile+ftrl", {"fit_intercept": True}),
    ("auto", "auto", {}),
)
#: the contenders of the issue's target "online scaling in front of one fixed linear learner".
SCALED = ("zscore+ftrl", "quantile+ftrl")
#: evofeat's own versions of the field's four methods (``src/evofeat/haphazard/``), contenders
#: too: (label, registered name). They get the review's hyperparameters per data set where the
#: package's models get them (:func:`field_params`), their defaults otherwise; the random ones
#: (OCDS, DynFo: a ``seed`` parameter) run with seeds 0 to ``--runs`` - 1, the others once.
FIELD: tuple[tuple[str, str], ...] = (
    ("ef-olvf", "olvf"),
    ("ef-ocds", "ocds"),
    ("ef-ovfm", "ovfm"),
    ("ef-dynfo", "dynfo"),
)
RANDOM_FIELD = ("ocds", "dynfo")
#: the recommended learner, fixed before the run (its members and rule are not chosen here).
RECOMMENDED = "auto"


def registered(name: str) -> bool:
    """Whether ``name`` is an online learner of this evofeat."""
    from evofeat.base.errors import InputError
    from evofeat.registry import canonical

    try:
        canonical(name, kind="online")
    except InputError:
        return False
    return True


PEERS = ("olvf", "ocds", "ovfm", "dynfo")
#: the two sets of streams: the package's (its mask_seed) and the review's own (seed 2023).
STREAMS = ("package", "review")
#: the peers that run on magic04 and a8a (the others take hours there on this machine).
LARGE_PEERS = ("olvf",)
RUNS = 5

#: the review's hyperparameters per model and data set (its Code/Config/config_models.py).
PARAMS = ROOT / "haphazard_review_params.json"


def peer_params(peer: str, name: str, n_rows: int, n_features: int) -> dict[str, Any]:
    """The review's hyperparameters for ``peer`` on data set ``name``, as the package names them."""
    given = dict(json.loads(PARAMS.read_text())[peer][name])
    if peer == "ocds":
        # the package's beta2 is 2 lamda - 2 beta1: lamda = beta1 + beta2 / 2 gives the review's
        # beta2; gamma follows the review's rule (gamma * d at most 150, gamma at most 1); the
        # review's T and beta0 have no counterpart in the package's rewrite.
        return {
            "alpha": given["alpha"],
            "beta1": given["beta1"],
            "lamda": given["beta1"] + given["beta2"] / 2,
            "gamma": min(1.0, round(150 / n_features, 3)),
        }
    if peer == "dynfo":
        given["N"] = min(20, int(n_rows * 0.1))  # the review: 10 % of the rows, at most 20
    return given


def field_params(name: str, dataset: str, n_rows: int, n_features: int) -> dict[str, Any]:
    """The review's hyperparameters for evofeat's ``name``, as evofeat's learner names them.

    OLVF: ``C``, ``C_bar``, ``B``, ``reg`` as given (default ``rule="paper"``). OCDS: ``alpha``,
    ``beta1``, ``beta2`` as given (evofeat keeps the review's names), ``gamma = min(1, 150 / d)``
    as for the package's; ``tau`` (``1 / sqrt(t)``) and ``rule="paper"`` its defaults. OVFM:
    ``decay_choice``, ``contribute_error_rate`` as given and ``window = min(20, n / 10)`` (the
    package runner's); ``copula="online-em"``, ``forget``, ``ridge`` its defaults. DynFo: every
    parameter as the package's gets it (``N`` = 10 % of the rows, at most 20); ``relearn="refit"``
    (the paper; the package's rule is ``"improve"``) and ``max_learners=None`` its defaults.
    """
    given = peer_params(name, dataset, n_rows, n_features)
    if name == "olvf":
        return {k: given[k] for k in ("C", "C_bar", "B", "reg")}
    if name == "ocds":
        review = json.loads(PARAMS.read_text())["ocds"][dataset]
        return {
            "alpha": review["alpha"],
            "beta1": review["beta1"],
            "beta2": review["beta2"],
            "gamma": given["gamma"],
        }
    if name == "ovfm":
        return {
            "decay_choice": int(given["decay_choice"]),
            "contribute_error_rate": float(given["contribute_error_rate"]),
            "window": min(20, int(n_rows * 0.1)),
        }
    return given


# ------------------------------------------------------------------ inputs
def data_root() -> Path:
    """``$EVOFEAT_DATA`` (the folder holding ``haphazard-review/``)."""
    root = os.environ.get("EVOFEAT_DATA")
    if not root:
        sys.exit("set EVOFEAT_DATA to the shared datasets folder (it holds haphazard-review/)")
    return Path(root)


def published_table(path: Path) -> dict[str, dict[str, list[float | None]]]:
    """The review's published balanced accuracy: ``{"wdbc|0.5": {"OLVF": [mean, std]}}``."""
    table: dict[str, dict[str, list[float | None]]] = {}
    p: float | None = None
    methods: list[str] = []
    for line in path.read_text().splitlines():
        head = re.match(r"## Synthetic haphazard, p = ([0-9.]+)", line)
        if head:
            p = float(head.group(1))
            continue
        if line.startswith("## "):
            p = None
        if p is None or not line.startswith("|") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == "data set":
            methods = cells[1:]
            continue
        row: dict[str, list[float | None]] = {}
        for method, text in zip(methods, cells[1:], strict=True):
            nums = [float(t) for t in re.findall(r"[0-9.]+", text)]
            row[method] = [nums[0], nums[1] if len(nums) > 1 else None]
        table[f"{cells[0]}|{p}"] = row
    return table


#: the package's loaders shuffle every data set with ``DataFrame.sample(frac=1, random_state=42)``
#: except these, which it keeps in file order.
UNSHUFFLED = ("a8a",)
#: the package's default mask seed.
MASK_SEED = 42
_LOADED: dict[str, Any] = {}


def load(name: str, p: float, streams: str, replace_with: str | float = "nan") -> Any:
    """The package's data set ``name`` with a probabilistic mask at availability ``p``.

    ``streams="package"``: the package's rows and mask (``mask_seed=42``). ``"review"``: the
    same rows put in the order and masked as the review's own code did for its published
    table (``seed_everything(2023)``, then ``DataFrame.sample(frac=1)`` on the global NumPy
    state, then ``np.random.random((n, d)) < p``, features NaN in the file unavailable, an
    empty row given one feature by ``np.random.randint``): the package's shuffle is undone
    first (its permutation is ``RandomState(42).choice(n, n, replace=False)``).
    """
    import copy

    import haphazard
    from haphazard.normalization import load_normalizer

    if name not in _LOADED:  # the package's loaders are slow on a8a: read each file once
        _LOADED[name] = haphazard.load_dataset(
            name,
            base_path=str(data_root() / "haphazard-review"),
            scheme="probabilistic",
            norm="none",
        )
    base = _LOADED[name]
    ds = copy.copy(base)
    # the package's own mask for p (what load_dataset(..., availability_prob=p) draws)
    ds.mask = base._load_mask("probabilistic", availability_prob=p, seed=MASK_SEED)
    ds.normalize = load_normalizer("none", num_features=base.n_features, replace_with=replace_with)
    if streams == "review":
        n, d = ds.x.shape
        x, y = np.empty_like(ds.x), np.empty_like(ds.y)
        if name in UNSHUFFLED:
            x[:], y[:] = ds.x, ds.y
        else:
            order = np.random.RandomState(42).choice(n, n, replace=False)
            x[order], y[order] = ds.x, ds.y
        rs = np.random.RandomState(2023)  # the global state after np.random.seed(2023)
        idx = rs.choice(n, n, replace=False)
        x, y = x[idx], y[idx]
        mask = (rs.random_sample((n, d)) < p) & ~np.isnan(x)
        empty = np.flatnonzero(mask.sum(axis=1) == 0)
        mask[empty, rs.randint(d, size=len(empty))] = True
        ds.x, ds.y, ds.mask = x, y, mask
    return ds


def scores_metrics(y01: np.ndarray, pred01: np.ndarray, score: np.ndarray) -> dict[str, float]:
    """Balanced accuracy and accuracy (%), AUROC of ``score`` (larger = class 1)."""
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score

    ok = np.isfinite(score)
    with np.errstate(over="ignore", invalid="ignore"):  # huge finite scores of a diverged run
        auroc = (
            float(roc_auc_score(y01[ok], score[ok]))
            if ok.all() and len(np.unique(y01)) == 2
            else None
        )
    return {
        "balanced_accuracy": 100.0 * float(balanced_accuracy_score(y01, pred01)),
        "accuracy": 100.0 * float(np.mean(y01 == pred01)),
        "auroc": auroc,  # type: ignore[dict-item]
    }


# ------------------------------------------------------------------ runs
def run_evofeat(name: str, params: dict[str, Any], ds: Any) -> dict[str, Any]:
    """One prequential pass of evofeat's ``name`` over the data set's masked rows."""
    import importlib
    import types

    from evofeat.evaluate import prequential
    from evofeat.registry import make
    from evofeat.streams import Stream

    # the module, not the function of the same name that evofeat.evaluate exports (patching that
    # left the loop's clock on wall time; the same fix as benchmarks/leaderboard.py's)
    pq = importlib.import_module("evofeat.base.prequential")
    pq.time = types.SimpleNamespace(perf_counter=time.thread_time)  # type: ignore[attr-defined]
    X = np.where(ds.mask, ds.x, np.nan)
    y01 = np.asarray(ds.y, dtype=np.int64)
    stream = Stream.from_dense(X, np.where(y01 == 1, 1, -1), task="binary")
    learner = make(name, **params)
    # a learner whose weights diverge on the raw values (OCDS on some data sets, as the
    # package's) warns and goes on: the run is kept and flagged, as the package's runs are kept
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.thread_time()
        res = prequential(learner, stream, keep_predictions=True)
        cpu = time.thread_time() - t0
    diverged = any("diverged" in str(w.message) for w in caught)
    pred01 = (np.asarray(res.labels) == 1).astype(np.int64)
    out = scores_metrics(y01, pred01, np.asarray(res.scores, dtype=np.float64))
    out.update(n_rows=int(len(y01)), cpu_seconds=cpu, rows_per_s=len(y01) / max(cpu, 1e-9))
    out["correct"] = _bits(y01 == pred01)
    if diverged:
        out["diverged"] = True
    return out


def run_peer(peer: str, ds: Any, params: dict[str, Any], seed: int) -> dict[str, Any]:
    """One pass of the package's model ``peer`` (its own runner) with ``seed``."""
    import contextlib
    import io

    import haphazard

    model = haphazard.load_model(peer)
    t0 = time.thread_time()
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        out = model(ds, dict(params), seed=seed)
    cpu = time.thread_time() - t0
    y01 = np.asarray(out["labels"], dtype=np.int64)
    pred01 = np.asarray(out["preds"], dtype=np.int64)
    score = np.asarray(out["logits"], dtype=np.float64)
    if peer == "olvf":
        # the package's OLVF returns |w . x|; its prediction says the sign
        score = np.where(pred01 == 1, score, -score)
    elif not out["is_logit"]:
        score = score - 0.5
    res = scores_metrics(y01, pred01, score)
    res.update(n_rows=int(len(y01)), cpu_seconds=cpu, rows_per_s=len(y01) / max(cpu, 1e-9))
    res["correct"] = _bits(y01 == pred01)
    res["skipped_first_rows"] = int(ds.n_samples - len(y01))
    return res


def _bits(ok: np.ndarray) -> str:
    """Per-row correctness packed as hex (for paired tests over rows)."""
    return np.packbits(ok.astype(np.uint8)).tobytes().hex()


def _unbits(text: str, n: int) -> np.ndarray:
    return np.unpackbits(np.frombuffer(bytes.fromhex(text), np.uint8))[:n].astype(bool)


def olvf_as_half_pa(ds: Any, C: float) -> tuple[np.ndarray, np.ndarray]:
    """What the package's OLVF computes with B = 1, written as PA-I with half its step.

    In the package (1.2.8) the feature-space classifier's gradient is proportional to its own
    score, so its weights start at 0 and stay 0; both projection confidences are then
    sigmoid(0) = 1/2, the sparsity step keeps every feature when B = 1, and the instance
    classifier's update is ``w += 0.5 min(C, l / ||x||^2) y x`` on the row's visible features
    (``l`` the hinge loss of ``w . x``, ``||x||`` over the row with absent values 0). Its
    prediction is ``w . x > 0`` over the features seen before; a row with none (the first) is
    predicted at random by the package, and flagged here. Returns (predictions 0/1, flags).
    """
    X = np.where(ds.mask, ds.x, 0.0)
    y = np.where(np.asarray(ds.y) == 1, 1.0, -1.0)
    n, d = X.shape
    w, seen = np.zeros(d), np.zeros(d, dtype=bool)
    pred, unseen = np.empty(n, dtype=np.int64), np.zeros(n, dtype=bool)
    for t in range(n):
        m = ds.mask[t]
        shared = m & seen
        unseen[t] = not shared.any()
        pred[t] = int(X[t][shared] @ w[shared] > 0)
        loss = max(0.0, 1.0 - y[t] * (X[t][m] @ w[m]))
        tau = min(C, loss / (X[t] @ X[t] + np.finfo(float).eps))
        w[m] += 0.5 * tau * y[t] * X[t][m]
        seen |= m
    return pred, unseen


def check_olvf(args: argparse.Namespace) -> None:
    """Compare the package's OLVF with :func:`olvf_as_half_pa` on every cell with B = 1."""
    rows = []
    for d in args.datasets:
        for p in args.p:
            ds = load(d, p, "package", replace_with=0.0)
            prm = peer_params("olvf", d, ds.n_samples, ds.n_features)
            if prm["B"] != 1:
                rows.append({"dataset": d, "p": p, "B": prm["B"], "skipped": True})
                continue
            import haphazard

            out = haphazard.load_model("olvf")(ds, dict(prm), seed=0)
            mine, unseen = olvf_as_half_pa(ds, prm["C"])
            differ = int(np.sum((np.asarray(out["preds"]) != mine) & ~unseen))
            rows.append(
                {
                    "dataset": d,
                    "p": p,
                    "rows": len(mine),
                    "unseen_rows": int(unseen.sum()),
                    "differing_predictions_elsewhere": differ,
                }  # fmt: skip
            )
            print(rows[-1], flush=True)
    (args.out / "haphazard_review.olvf_check.json").write_text(json.dumps(rows, indent=1))


# ------------------------------------------------------------------ driver
def _key(r: dict[str, Any]) -> tuple[str, str, float, str, int]:
    return (r["streams"], r["dataset"], float(r["p"]), r["method"], int(r["run"]))


def _done(path: Path) -> set[tuple[str, str, float, str, int]]:
    if not path.exists():
        return set()
    return {_key(json.loads(line)) for line in path.read_text().splitlines() if line.strip()}


def _append(path: Path, record: dict[str, Any]) -> None:
    with path.open("a") as f:
        f.write(json.dumps(record) + "\n")
        f.flush()
        os.fsync(f.fileno())


def _store(
    path: Path,
    key: tuple[str, str, float, str, int],
    kind: str,
    params: dict[str, Any],
    rec: dict[str, Any],
) -> None:
    """Append one finished run (``key``: streams, data set, p, method, run) and say so."""
    st, d, p, method, seed = key
    _append(path, {"streams": st, "dataset": d, "p": p, "method": method, "run": seed,
                   "kind": kind, "params": params, **rec})  # fmt: skip
    print(
        f"{st:7s} {d:11s} p={p} {method:10s} seed {seed} "
        f"BA {rec['balanced_accuracy']:.2f} ({rec['rows_per_s']:.0f} rows/s)",
        flush=True,
    )


def run(args: argparse.Namespace) -> None:
    import haphazard

    path = args.out / "haphazard_review.jsonl"
    if args.fresh and path.exists():
        path.unlink()
    done = _done(path)
    published = published_table(data_root().parent / "papers" / "haphazard_review_published.md")
    contenders = [*CONTENDERS, *((label, name, {}) for label, name in FIELD)]
    skipped = [label for label, name, _ in contenders if not registered(name)]
    meta_path = args.out / "haphazard_review.meta.json"
    invocations = []
    if meta_path.exists() and not args.fresh:
        old = json.loads(meta_path.read_text())
        invocations = old.get("invocations") or [
            {"argv": old.get("argv", ""), "started_utc": old.get("started_utc", "")}
        ]
    invocations.append(
        {
            "argv": " ".join(sys.argv[1:]),
            "started_utc": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        }
    )
    meta_path.write_text(
        json.dumps(
            {
                "invocations": invocations,
                "haphazard": haphazard.__version__,
                "contenders": [[lbl, n, p] for lbl, n, p in contenders],
                "skipped_contenders": skipped,
                "published": published,
            },
            indent=1,
        )
    )
    cells = [(st, d, p) for st in args.streams for d in args.datasets for p in args.p]
    # evofeat first: deterministic, one run each, fast.
    for st, d, p in cells:
        ds = None
        for label, name, params in contenders:
            if label not in args.methods or label in skipped:
                continue
            for seed in range(args.runs if name in RANDOM_FIELD else 1):
                if (st, d, p, label, seed) in done:
                    continue
                ds = ds or load(d, p, st)
                if (label, name) in FIELD:
                    params = field_params(name, d, ds.n_samples, ds.n_features)
                    params = {**params, "seed": seed} if name in RANDOM_FIELD else params
                rec = run_evofeat(name, params, ds)
                _store(path, (st, d, p, label, seed), "evofeat", params, rec)
    # Peers seed by seed, and within a seed the fast ones first over every cell (OLVF, then
    # OCDS, OVFM, DynFo): a run stopped early still has each finished peer on every cell.
    for seed in range(args.runs):
        for peer in PEERS:
            for st, d, p in cells:
                if peer not in (args.peers if st == "package" else args.review_peers):
                    continue
                if d not in SMALL and peer not in LARGE_PEERS:
                    continue
                if peer == "olvf" and seed > 0:  # deterministic: one run (as the review)
                    continue
                if (st, d, p, peer, seed) in done:
                    continue
                ds = load(d, p, st, replace_with=0.0)
                prm = peer_params(peer, d, ds.n_samples, ds.n_features)
                rec = run_peer(peer, ds, prm, seed)
                _store(path, (st, d, p, peer, seed), "peer", prm, rec)
    render(args.out)


# ------------------------------------------------------------------ report
Runs = dict[tuple[str, str, float, str], list[dict[str, Any]]]


def _load(out: Path) -> tuple[dict[str, Any], Runs]:
    meta = json.loads((out / "haphazard_review.meta.json").read_text())
    runs: Runs = defaultdict(list)
    for line in (out / "haphazard_review.jsonl").read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            runs[(r["streams"], r["dataset"], float(r["p"]), r["method"])].append(r)
    for v in runs.values():
        v.sort(key=lambda r: r["run"])
    return meta, runs


def paired(ev_runs: list[dict[str, Any]], peer_runs: list[dict[str, Any]]) -> tuple[str, float]:
    """W/T/L of an evofeat contender's runs against a peer's runs, and the test's p value.

    A deterministic contender (one run) against a random peer with at least 3 seeds done: a
    t test on the paired differences of balanced accuracy (the contender's one value on the
    one mask pairs with every seed). A random contender (evofeat's OCDS, DynFo: at least 3
    seeds) against a random peer with at least 3 seeds: Welch's t test (their seeds are not
    the same draws, so unpaired); against a deterministic peer: a t test of its values against
    the peer's one value. Otherwise (a deterministic peer, OLVF, or a random one with fewer
    seeds done): McNemar's exact test on the rows one got right and the other wrong, first
    runs against each other (so it tests accuracy, not balanced accuracy). Significance at 0.05.
    """
    from scipy import stats

    a = np.array([r["balanced_accuracy"] for r in ev_runs])
    z = np.array([r["balanced_accuracy"] for r in peer_runs])
    if len(a) >= 3 or len(z) >= 3:
        if len(a) >= 3 and len(z) >= 3:
            diff = np.array([a.mean() - z.mean()])
            pval = float(stats.ttest_ind(a, z, equal_var=False).pvalue)
        else:
            diff = (a[:, None] - z[None, :]).ravel()
            if np.allclose(diff, diff[0]):
                pval = 0.0 if diff[0] != 0 else 1.0
            else:
                pval = float(stats.ttest_1samp(diff, 0.0).pvalue)
        if np.isnan(pval):  # no spread on either side: a constant difference
            pval = 0.0 if diff[0] != 0 else 1.0
        mean = float(diff.mean())
    else:
        ev, r = ev_runs[0], peer_runs[0]
        n = r["n_rows"]
        x = _unbits(ev["correct"], ev["n_rows"])[ev["n_rows"] - n :]
        zz = _unbits(r["correct"], n)
        b, c = int(np.sum(x & ~zz)), int(np.sum(~x & zz))
        pval = float(stats.binomtest(b, b + c, 0.5).pvalue) if b + c else 1.0
        mean = float(a[0] - z[0])
    if pval < 0.05:
        return ("W" if mean > 0 else "L"), pval
    return "T", pval


def _mean(rs: list[dict[str, Any]], key: str = "balanced_accuracy") -> float:
    """The mean of ``key`` over a method's runs in a cell (one run: its value)."""
    return float(np.mean([r[key] for r in rs]))


def _ms(rs: list[dict[str, Any]], key: str) -> str:
    vals = [r[key] for r in rs if r.get(key) is not None]
    if not vals:
        return "-"
    scale = 100.0 if key == "auroc" else 1.0
    if len(vals) == 1:
        return f"{scale * vals[0]:.2f}"
    return f"{scale * np.mean(vals):.2f} ± {scale * np.std(vals):.2f}"


def _accuracy_tables(
    st: str, runs: Runs, pub: dict[str, Any], labels: list[str], lines: list[str]
) -> tuple[dict[str, dict[str, int]], dict[str, int], int]:
    """Per p, one table of balanced accuracy on streams ``st``; returns the W/T/L tallies."""
    peers = [q for q in PEERS if any(k[0] == st and k[3] == q for k in runs)]
    tally: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    ahead: dict[str, int] = defaultdict(int)
    n_pub = 0
    for p in PROBS:
        lines += [
            f"### p = {p}",
            "",
            "| "
            + " | ".join(
                ["data set", "published best", "published OLVF"]
                + [f"evofeat `{lbl}`" for lbl in labels]
                + [f"{q.upper()} here" for q in peers]
                + ["best evofeat - published best"]
            )
            + " |",
            "|---" * (4 + len(labels) + len(peers)) + "|",
        ]
        for d in DATASETS:
            if not any((st, d, p, m) in runs for m in labels + peers):
                continue
            row = pub.get(f"{d}|{p}", {})
            best_m = max(row, key=lambda m: row[m][0]) if row else None
            best = row[best_m][0] if best_m else None
            cells = [d, f"{best:.2f} ({best_m})" if best_m else "-"]
            cells.append(f"{row['OLVF'][0]:.2f}" if "OLVF" in row else "-")
            evs = []
            for lbl in labels:
                rs = runs.get((st, d, p, lbl), [])
                if not rs:
                    cells.append("-")
                    continue
                ba = _mean(rs)
                evs.append(ba)
                marks = []
                for q in peers:
                    qr = runs.get((st, d, p, q))
                    if qr:
                        w, _ = paired(rs, qr)
                        tally[f"`{lbl}` vs {q.upper()}"][w] += 1
                        marks.append(w)
                if best is not None and d in SMALL:
                    ahead[lbl] += ba >= best
                shown = f"{ba:.2f}" if len(rs) == 1 else _ms(rs, "balanced_accuracy")
                cells.append(f"{shown} {''.join(marks)}".strip())
            for q in peers:
                cells.append(_ms(runs.get((st, d, p, q), []), "balanced_accuracy"))
            if best is not None and d in SMALL and evs:
                n_pub += 1
            cells.append(f"{max(evs) - best:+.2f}" if evs and best is not None else "-")
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    lines += [
        "evofeat's own OCDS and DynFo (`ef-ocds`, `ef-dynfo`: random) show the mean ± std over "
        "their seeds; the other contenders are deterministic (one run). "
        "The letters after an evofeat number: its paired result against each peer run here, "
        "in the order of the peer columns (W win, T tie, L loss at p < 0.05). "
        "'best evofeat' is the best of the contenders, chosen after the fact.",
        "",
    ]
    return tally, ahead, n_pub


def _olvf_reproduction(runs: Runs, pub: dict[str, Any]) -> list[str]:
    """How closely the package's OLVF on the review's streams gives the published OLVF."""
    rows = []
    for p in PROBS:
        for d in DATASETS:
            rs = runs.get(("review", d, p, "olvf"))
            if rs and "OLVF" in pub.get(f"{d}|{p}", {}):
                rows.append((d, p, rs[0]["balanced_accuracy"], pub[f"{d}|{p}"]["OLVF"][0]))
    if not rows:
        return []
    same = [r for r in rows if abs(r[2] - r[3]) <= 0.01]
    worst = max(rows, key=lambda r: abs(r[2] - r[3]))
    return [
        "### Do the review's streams rebuilt here give its published numbers?",
        "",
        f"The package's OLVF (deterministic) on the *review* streams gives the published OLVF "
        f"to within 0.01 points in {len(same)} of {len(rows)} cells "
        f"(by p: "
        + ", ".join(
            f"{p}: {sum(1 for r in same if r[1] == p)} of {sum(1 for r in rows if r[1] == p)}"
            for p in PROBS
        )
        + f"); the largest gap: {worst[0]} p = {worst[1]}, {worst[2]:.2f} against "
        f"{worst[3]:.2f}.",
        "",
    ]


def _olvf_check(out: Path) -> list[str]:
    """The section on what the package's OLVF computes (from ``--check-olvf``)."""
    path = out / "haphazard_review.olvf_check.json"
    if not path.exists():
        return []
    rows = [r for r in json.loads(path.read_text()) if not r.get("skipped")]
    skipped = sorted({r["dataset"] for r in json.loads(path.read_text()) if r.get("skipped")})
    differ = sum(r["differing_predictions_elsewhere"] for r in rows)
    return [
        "### What the package's OLVF computes",
        "",
        "In `haphazard` 1.2.8 the feature-space classifier's gradient is proportional to its own "
        "score, so its weights start at 0 and stay 0: both projection confidences are 1/2, and "
        "with B = 1 the package's OLVF is PA-I with half its step, `w += 0.5 min(C, l / "
        "||x||^2) y x` on the visible features (`olvf_as_half_pa`). Checked with "
        "`--check-olvf` on the package streams: "
        f"{sum(r['rows'] - r['unseen_rows'] for r in rows) - differ} of "
        f"{sum(r['rows'] - r['unseen_rows'] for r in rows)} predictions the same in "
        f"{len(rows)} cells ({differ} differ); the rows not compared are those with no feature "
        f"seen before ({sum(r['unseen_rows'] for r in rows)}, the package predicts them at "
        "random). Not checked: "
        + (", ".join(skipped) if skipped else "none")
        + " (B < 1 there; the package's sparsity step then zeroes the largest weights, "
        "`argsort(w)[:-k]` keeping all but the k largest).",
        "",
    ]


def _seeds_done(runs: Runs) -> list[str]:
    """A table of the seeds done per random peer and data set (fewest over p)."""
    rows = []
    for q in ("ocds", "ovfm", "dynfo"):
        cells = []
        for d in SMALL:
            n = [len(runs.get(("package", d, p, q), [])) for p in PROBS]
            cells.append(str(min(n)))
        if any(c != "0" for c in cells):
            rows.append(f"| {q.upper()} | " + " | ".join(cells) + " |")
    if not rows:
        return []
    return [
        "### Seeds done per random peer (package streams; the fewest over the three p)",
        "",
        "| peer | " + " | ".join(SMALL) + " |",
        "|---" * (1 + len(SMALL)) + "|",
        *rows,
        "",
    ]


# ------------------------------------------------------------------ targets (issue 25)
#: the per-row Python peers: the package's four models (its runner feeds them row by row).
LEADERBOARD_PER_ROW = ("river:pa", "river:logreg", "river:perceptron")
DEMO_FILE = "haphazard_review.demo.md"


def _cell_keys(runs: Runs, st: str) -> list[tuple[str, float]]:
    return [(d, p) for p in PROBS for d in DATASETS if (st, d, p, RECOMMENDED) in runs]


def _published_best(pub: dict[str, Any], d: str, p: float) -> tuple[str, float] | None:
    row = pub.get(f"{d}|{p}", {})
    if not row:
        return None
    m = max(row, key=lambda k: row[k][0])
    return m, float(row[m][0])


def _leaderboard(out: Path) -> dict[str, Any] | None:
    """Per leaderboard cell: ``auto``'s gap to evofeat's best single learner and its paired
    verdicts against each peer ahead of it on average (``benchmarks/leaderboard.py``'s
    ``paired``, the same tests as its report; a peer not ahead cannot be a loss) and its speed
    ratio against each. Kept in ``haphazard_review.leaderboard.json`` with the hash of
    ``leaderboard.json`` it was computed from (its Wilcoxon tests take minutes)."""
    import hashlib
    import importlib

    path, cache = out / "leaderboard.json", out / "haphazard_review.leaderboard.json"
    if not path.exists():
        return None
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    if cache.exists() and json.loads(cache.read_text())["sha256"] == sha:
        return dict(json.loads(cache.read_text())["cells"])
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    lb = importlib.import_module("leaderboard")
    summary: dict[str, Any] = {}
    for k, c in json.loads(path.read_text())["cells"].items():
        L = c["learners"]
        full = {m: v for m, v in L.items() if "acc" in v and len(v["acc"]) == c["orders"]}
        rec = f"evofeat:{lb.RECOMMENDED}"
        singles = {m: v for m, v in full.items() if m.startswith("evofeat:") and m != rec}
        if rec not in full or not singles:
            continue
        best = max(singles, key=lambda m: np.mean(singles[m]["acc"]))
        summary[k] = {
            "best": best,
            "gap": 100 * float(np.mean(full[rec]["acc"]) - np.mean(full[best]["acc"])),
            "vs": {
                q: {
                    # only a peer ahead on average can be a loss: the tests run for those alone
                    **(
                        lb.paired(full[rec]["acc"], v["acc"])
                        if np.mean(full[rec]["acc"]) < np.mean(v["acc"])
                        else {
                            "diff": float(np.mean(full[rec]["acc"]) - np.mean(v["acc"])),
                            "t": "not behind",
                            "w": "not behind",
                        }  # fmt: skip
                    ),
                    "rec_speed": float(np.median(full[rec]["rows_s"]) / np.median(v["rows_s"])),
                }
                for q, v in full.items()
                if not q.startswith("evofeat:")
            },
        }
    cache.write_text(json.dumps({"sha256": sha, "cells": summary}, indent=1))
    return summary


def _demo_rates(out: Path) -> dict[str, dict[str, float]] | None:
    """``{data set: {"majority class": rate, "auto": accuracy, ...}}`` from the stored demo."""
    path = out / DEMO_FILE
    if not path.exists():
        return None
    rates: dict[str, dict[str, float]] = defaultdict(dict)
    for line in path.read_text().splitlines():
        cells = [c.strip().strip("`*") for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and re.fullmatch(r"[0-9.]+", cells[-1]):
            # "majority class (baseline)", "auto (recommended)", "PA-I (Crammer ...) on ..."
            rates[cells[0]][cells[1].split(" (")[0]] = float(cells[-1])
    return dict(rates)


def run_demo(out: Path) -> None:
    """Run ``evofeat demo`` (its defaults) and store what it prints for the Targets section."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-c", "from evofeat.cli import main; main()", "demo", "--out", tmp]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode:
            sys.exit(f"`evofeat demo` failed:\n{done.stderr}")
        text = done.stdout
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    table = "\n".join(t for t in text.splitlines() if t.startswith("|"))  # not its temp paths
    (out / DEMO_FILE).write_text(f"<!-- `evofeat demo` ({when}) -->\n{table}\n")
    print(text)


def _verdict(n_met: int, n: int, need: int) -> str:
    return "met" if n_met >= need else f"missed by {need - n_met} (cells)"


def targets(out: Path, runs: Runs, pub: dict[str, Any], labels: list[str]) -> list[str]:
    """The Targets section: one row per target of issue 25, measured from the stored runs."""
    rec = RECOMMENDED
    singles = [m for m in labels if m != rec]
    rows: list[tuple[str, str, str, str]] = []
    notes: list[str] = []

    # 1. auto >= the published best on every data set x p cell
    for st in ("review", "package"):
        keys = [k for k in _cell_keys(runs, st) if _published_best(pub, *k)]
        behind, nobody = [], 0
        for d, p in keys:
            m, best = _published_best(pub, d, p)  # type: ignore[misc]
            gap = _mean(runs[(st, d, p, rec)]) - best
            if gap < 0:
                behind.append(f"{d} {p} {gap:+.2f} ({m})")
                nobody += all(
                    _mean(runs[(st, d, p, x)]) < best for x in singles if (st, d, p, x) in runs
                )
        met = len(keys) - len(behind)
        rows.append(
            (
                f"`auto` >= the review's published best, every data set x p ({st} streams)",
                f"{met} of {len(keys)} cells",
                _verdict(met, len(keys), len(keys)),
                (
                    "behind: "
                    + "; ".join(behind)
                    + f". In {nobody} of these {len(behind)} cells no evofeat contender "
                    "reaches the published best either"
                )
                if behind
                else "",
            )
        )

    # 2. no paired loss against any peer (review's cells; the leaderboard's)
    for st in STREAMS:
        losses, pairs = [], 0
        for d, p in _cell_keys(runs, st):
            for q in PEERS:
                qr = runs.get((st, d, p, q))
                if not qr:
                    continue
                pairs += 1
                w, pv = paired(runs[(st, d, p, rec)], qr)
                if w == "L":
                    gap = _mean(runs[(st, d, p, rec)]) - _mean(qr)
                    losses.append(f"{d} {p} to {q.upper()} ({gap:+.2f}, p = {pv:.3f})")
        cells_lost = len({x.split(" to ")[0] for x in losses})
        total = len(_cell_keys(runs, st))
        rows.append(
            (
                f"`auto` has no paired loss against any peer run here ({st} streams; "
                + ", ".join(q.upper() for q in PEERS if any(k[0] == st and k[3] == q for k in runs))
                + ")",
                f"{total - cells_lost} of {total} cells without a loss; {len(losses)} losses "
                f"in {pairs} pairs",
                _verdict(total - cells_lost, total, total),
                "losses: " + "; ".join(losses) if losses else "",
            )
        )
    board = _leaderboard(out)
    if board:
        done = board
        losses = [
            f"{k} to {q} ({100 * v['diff']:+.2f} points)"
            for k, a in done.items()
            for q, v in a["vs"].items()
            if "loss" in (v["t"], v["w"])
        ]
        cells_lost = len({x.split(" to ")[0] for x in losses})
        rows.append(
            (
                "`auto` has no paired loss against any peer (leaderboard; t-test or Wilcoxon "
                "over the 10 orders)",
                f"{len(done) - cells_lost} of {len(done)} cells without a loss; {len(losses)} "
                "losses",
                _verdict(len(done) - cells_lost, len(done), len(done)),
                "losses: " + "; ".join(losses) if losses else "",
            )
        )

    # 3. within 0.5 points of evofeat's best single learner (after the fact) on >= 90 %
    for st in STREAMS:
        keys = _cell_keys(runs, st)
        gaps = {}
        for d, p in keys:
            vals = {m: _mean(runs[(st, d, p, m)]) for m in singles if (st, d, p, m) in runs}
            if vals:
                best = max(vals, key=lambda m: vals[m])
                gaps[(d, p)] = (_mean(runs[(st, d, p, rec)]) - vals[best], best)
        close = sum(g >= -0.5 for g, _ in gaps.values())
        need = int(np.ceil(0.9 * len(gaps)))
        far = sorted(gaps.items(), key=lambda kv: kv[1][0])
        rows.append(
            (
                f"`auto` within 0.5 points of evofeat's best single contender, chosen after the "
                f"fact ({st} streams; among " + ", ".join(f"`{m}`" for m in singles) + ")",
                f"{close} of {len(gaps)} cells ({100 * close / max(len(gaps), 1):.0f} %)",
                _verdict(close, len(gaps), need),
                "further: "
                + "; ".join(f"{d} {p} {g:+.2f} (`{m}`)" for (d, p), (g, m) in far if g < -0.5),
            )
        )
    if board:
        done = board
        gaps_lb = {k: float(a["gap"]) for k, a in done.items()}
        close = sum(g >= -0.5 for g in gaps_lb.values())
        need = int(np.ceil(0.9 * len(gaps_lb)))
        rows.append(
            (
                "`auto` within 0.5 points of evofeat's best single learner, chosen after the fact "
                "(leaderboard; accuracy)",
                f"{close} of {len(gaps_lb)} cells ({100 * close / max(len(gaps_lb), 1):.0f} %)",
                _verdict(close, len(gaps_lb), need),
                f"median gap {np.median(list(gaps_lb.values())):+.2f} points, worst "
                f"{min(gaps_lb.values()):+.2f} ({min(gaps_lb, key=lambda k: gaps_lb[k])})",
            )
        )

    # 4. online scaling in front of one fixed linear learner >= published best in >= 20 of 33
    for lbl in (x for x in SCALED if x in labels):
        for st in ("review", "package"):
            keys = [
                (d, p)
                for p in PROBS
                for d in SMALL
                if (st, d, p, lbl) in runs and _published_best(pub, d, p)
            ]
            behind = [
                f"{d} {p} {_mean(runs[(st, d, p, lbl)]) - _published_best(pub, d, p)[1]:+.2f}"  # type: ignore[index]
                for d, p in keys
                if _mean(runs[(st, d, p, lbl)]) < _published_best(pub, d, p)[1]  # type: ignore[index]
            ]
            met = len(keys) - len(behind)
            rows.append(
                (
                    f"`{lbl}` >= the published best in >= 20 of the 33 cells of the 11 smaller "
                    f"data sets ({st} streams)",
                    f"{met} of {len(keys)} cells",
                    _verdict(met, len(keys), 20),
                    "behind: " + "; ".join(behind),
                )
            )

    # 5. auto >= 10x the rows/s of every per-row Python peer in every cell
    for st in STREAMS:
        ratios = {}
        for d, p in _cell_keys(runs, st):
            ours = float(np.median([r["rows_per_s"] for r in runs[(st, d, p, rec)]]))
            for q in PEERS:
                qr = runs.get((st, d, p, q))
                if qr:
                    theirs = float(np.median([r["rows_per_s"] for r in qr]))
                    ratios.setdefault((d, p), []).append((ours / theirs, q))
        slow = {k: min(v) for k, v in ratios.items() if min(v)[0] < 10}
        lowest = min((min(v) + k for k, v in ratios.items()), default=None)
        rows.append(
            (
                f"`auto` >= 10x the rows/s of every per-row Python peer ({st} streams: the "
                "package's models)",
                f"{len(ratios) - len(slow)} of {len(ratios)} cells",
                _verdict(len(ratios) - len(slow), len(ratios), len(ratios)),
                (
                    f"lowest ratio {lowest[0]:,.1f}x ({lowest[1].upper()}, {lowest[2]} "
                    f"p = {lowest[3]})"
                    if lowest
                    else ""
                )
                + (
                    "; under 10x: "
                    + "; ".join(
                        f"{d} {p} {r:.1f}x ({q.upper()})" for (d, p), (r, q) in slow.items()
                    )
                    if slow
                    else ""
                ),
            )
        )
    if board:
        done = board
        slow_lb, n_lb, worst = [], 0, None
        for k, a in done.items():
            vs = [(v["rec_speed"], q) for q, v in a["vs"].items() if q in LEADERBOARD_PER_ROW]
            if not vs:
                continue
            n_lb += 1
            r, q = min(vs)
            worst = min(worst, (r, q, k)) if worst else (r, q, k)
            if r < 10:
                slow_lb.append(k)
        rows.append(
            (
                "`auto` >= 10x the rows/s of every per-row Python peer (leaderboard: River's "
                "PA, LogisticRegression, Perceptron)",
                f"{n_lb - len(slow_lb)} of {n_lb} cells",
                _verdict(n_lb - len(slow_lb), n_lb, n_lb),
                (f"lowest ratio {worst[0]:.1f}x ({worst[1]}, {worst[2]})" if worst else "")
                + "; Vowpal Wabbit (C++ behind its bindings) and OpenMOA (Java) are not "
                "per-row Python peers, not counted",
            )
        )

    # 6. the demo
    demo = _demo_rates(out)
    if demo:
        above = {d: v for d, v in demo.items() if v.get(rec, 0.0) > v.get("majority class", 1.0)}
        rows.append(
            (
                "`evofeat demo`: `auto` above the majority-class rate on every data set shown",
                f"{len(above)} of {len(demo)} data sets",
                _verdict(len(above), len(demo), len(demo)),
                "; ".join(
                    f"{d} {v.get(rec, float('nan')):.3f} against {v.get('majority class', float('nan')):.3f}"
                    for d, v in demo.items()
                ),
            )
        )
    lines = [
        "## Targets (issue 25; measured here, reported, not asserted)",
        "",
        "Generated by `--render` from the stored runs (`haphazard_review.jsonl`), the "
        "leaderboard's `leaderboard.json` (`benchmarks/leaderboard.py`'s `paired` tests over "
        "its 10 orders, cached in `haphazard_review.leaderboard.json`) and the stored output "
        "of `evofeat demo` "
        f"(`{DEMO_FILE}`, made by `--demo`). `auto` is evofeat's recommended learner, its "
        "members and rule fixed before these runs; a cell is a data set x p (review) or a data "
        "set x scenario (leaderboard). Means over a method's runs; paired verdicts as in the "
        "tables below (p < 0.05).",
        "",
        "| target | measured | verdict | detail |",
        "|---|---|---|---|",
    ]
    lines += [f"| {t} | {m} | {v} | {d} |" for t, m, v, d in rows]
    if any(v != "met" for _, _, v, _ in rows):
        lines += ["", "**Why, where a target is missed** (from measurements that exist):", ""]
        lines += [f"- {why}" for why in WHY]
    return lines + ["", *notes]


#: the causes measured elsewhere for the targets missed above (each names its measurement).
WHY = (
    "*Behind the published best, and paired losses on the review's cells.* Most cells behind "
    "are wpbc, ionosphere and svmguide3; in about half of the cells behind no evofeat "
    "contender (the linear learners behind online scaling, and evofeat's own OLVF, OCDS, "
    "OVFM and DynFo) reaches the published best either (the count is in the row). The two ways issue 25 names to close what remains were measured "
    "on held-out streams before the run and did not enter `auto`: recovering absent "
    "features by the copula's conditional mean helped in 1 cell and hurt in 2 "
    "(`benchmarks/investigations/imputation_selection.py`, docs/which-learner.md), and "
    "DynFo as a member changed `auto` by at most 0.0008 (its vote shares are often exactly "
    "0 or 1, so the mixture gives it no weight; "
    "`benchmarks/investigations/nonlinear_selection.py`).",
    "*Within 0.5 points of the best single learner.* `auto`'s guarantee is on the log loss "
    "(at most ln K above its best member), not on accuracy; on the held-out streams its "
    "members and rule were chosen on, it was within 0.5 points of the best member in 15 of "
    "25 cells (`benchmarks/investigations/auto_selection.py`, "
    "`docs/reports/investigations/auto_selection.md`): a member with the best accuracy but a "
    "poor log loss (PA-I's squashed margin on ijcnn1) does not get the weight. Here the best "
    "single learner is also chosen after the fact among more learners than `auto`'s members.",
    "*Speed.* `auto` runs five learners and costs about the sum of its members: "
    "`benchmarks/results/speed_auto.md` measures 0.38-0.40 M rows/s on long dense and "
    "a8a-like streams, 3.7-3.8x River's PAClassifier and 1.8-2.7x its LogisticRegression, "
    "so 10x River is out of reach with five members; against the package's models the "
    "cells under 10x are listed in the row, with the peer (the rows/s table below has "
    "every method's).",
    "*Leaderboard losses.* Listed in the row, each under 3 points "
    "(`benchmarks/results/leaderboard.md`, its `auto` section).",
)


def render(out: Path) -> None:
    """Write ``haphazard_review.md`` from the JSONL and the meta file."""
    meta, runs = _load(out)
    pub = meta["published"]
    labels = [c[0] for c in meta["contenders"] if c[0] not in meta["skipped_contenders"]]
    invocations = meta.get("invocations") or [
        {"argv": meta.get("argv", ""), "started_utc": meta.get("started_utc", "")}
    ]
    made = "; ".join(
        f"`nice -n 19 python benchmarks/haphazard_review.py{' ' + i['argv'] if i['argv'] else ''}`"
        f" ({i['started_utc']})"
        for i in invocations
    )
    lines = [
        "# The haphazard-inputs review's benchmark: evofeat beside the field",
        "",
        "Rerun everything (resumable; finished runs are kept) with "
        "`nice -n 19 python benchmarks/haphazard_review.py`; re-render with "
        "`python benchmarks/haphazard_review.py --render`. This report was made by: "
        f"{made}; package `haphazard` {meta['haphazard']}. Raw runs: "
        "`haphazard_review.jsonl` (one line per streams x data set x p x method x run).",
        "",
        "**Protocol.** The review's 13 data sets that can run here, read by the `haphazard` "
        "package's loaders (`base_path` = `$EVOFEAT_DATA/haphazard-review`); each feature of "
        "each row available with probability p; raw unscaled values; test-then-train over "
        "every row. evofeat's learners get each row with the absent features as NaN "
        "(`Stream.from_dense`: absent, never 0); the package's models get the same rows from "
        "the package's own iterator, absent values replaced by 0 as in the review's code (they "
        "read the mask). Metric: balanced accuracy (%), also AUROC (%). evofeat's contenders "
        "are deterministic (one run per cell); OCDS, OVFM and DynFo run with seeds 0-4, OLVF "
        "once (deterministic, as in the review). The package's models run with the review's "
        "hyperparameters per data set (`Code/Config/config_models.py` @ 141c00d9b997); OCDS "
        "is mapped to the package's parameters (alpha and beta1 as given, lamda = beta1 + "
        "beta2 / 2 so that the package's beta2 is the review's, gamma = min(1, 150 / d); the "
        "review's T and beta0 have no counterpart in the package's rewrite).",
        "",
        "**evofeat's own OLVF, OCDS, OVFM and DynFo** (`ef-olvf`, `ef-ocds`, `ef-ovfm`, "
        "`ef-dynfo`: the registered learners of `evofeat.haphazard`, each as its paper defines "
        "it) run on the same rows as the other contenders (absent = NaN) with the review's "
        "hyperparameters where the package's models get them: OLVF's C, C_bar, B, reg; OCDS's "
        "alpha, beta1, beta2 (the review's own) and gamma = min(1, 150 / d); OVFM's "
        "decay_choice, contribute_error_rate and window = min(20, n / 10); every DynFo "
        "parameter, N = 10 % of the rows at most 20. Their defaults otherwise: OLVF and OCDS "
        "`rule='paper'`, OCDS `tau=None` (1 / sqrt(t)), OVFM `copula='online-em'`, DynFo "
        "`relearn='refit'` (the package's rule is 'improve'), `max_learners=None` "
        "(`field_params`). OCDS and DynFo run with seeds 0-4; a run whose weights diverge "
        "(OCDS on raw values) is kept and flagged `diverged` in the JSONL, as the package's "
        "runs are kept.",
        "",
        "**Two sets of streams.** *package*: the package's rows and masks (`mask_seed=42`, its "
        "default; one mask per data set and p). *review*: the same rows ordered and masked as "
        "the review's own code did for its published table (seed 2023; see `load`). The "
        "published table is beside both; the *review* streams are the ones it was measured on.",
        "",
        "**Paired tests** (an evofeat contender against each peer run here, same streams): "
        "a t test over the seeds of a random peer where at least 3 seeds are done (the seeds "
        "done per cell are in the table of seeds below); McNemar's exact test over the rows "
        "against OLVF, and against a random peer's seed 0 where fewer seeds are done.",
        "",
    ]
    if RECOMMENDED in labels:
        lines += targets(out, runs, pub, labels)
    if meta["skipped_contenders"]:
        lines += [
            "Not registered when this ran, so skipped (the lead reruns the script later): "
            + ", ".join(f"`{s}`" for s in meta["skipped_contenders"])
            + ".",
            "",
        ]
    summary = []
    for st in STREAMS:
        if not any(k[0] == st for k in runs):
            continue
        lines += [f"## Balanced accuracy (%) on the {st} streams", ""]
        tally, ahead, n_pub = _accuracy_tables(st, runs, pub, labels, lines)
        summary.append(f"### {st} streams")
        summary.append("")
        for lbl in labels:
            summary.append(
                f"- `{lbl}` at or above the published best in {ahead[lbl]} of {n_pub} cells "
                "of the 11 smaller data sets."
            )
        for lbl in (x for x in SCALED if x in labels):
            verdict = "met" if ahead[lbl] >= 20 else f"missed by {20 - ahead[lbl]}"
            summary.append(
                f"- Target (issue 25: online scaling in front of one fixed linear learner at or "
                f"above the published best in at least 20 of the 33 cells): `{lbl}` "
                f"{ahead[lbl]} of {n_pub}, {verdict}."
            )
        summary.append("")
        if tally:
            summary += ["| paired | W | T | L |", "|---|---|---|---|"]
            summary += [f"| {k} | {v['W']} | {v['T']} | {v['L']} |" for k, v in tally.items()]
            summary.append("")
    diverged: dict[str, set[str]] = defaultdict(set)
    count: dict[str, int] = defaultdict(int)
    for (_, d, _, m), rs in runs.items():
        for r in rs:
            if r.get("diverged"):
                diverged[m].add(d)
                count[m] += 1
    if diverged:
        summary += [
            "Runs whose weights diverged (evofeat warned; kept, flagged `diverged` in the "
            "JSONL): "
            + "; ".join(
                f"`{m}` {count[m]} of {sum(len(rs) for k, rs in runs.items() if k[3] == m)} "
                f"runs, on {', '.join(sorted(ds))}"
                for m, ds in diverged.items()
            )
            + ".",
            "",
        ]
    lines += ["## Summary", "", *summary]
    lines += _olvf_reproduction(runs, pub)
    lines += _olvf_check(out)
    lines += _seeds_done(runs)
    peers = [q for q in PEERS if any(k[0] == "package" and k[3] == q for k in runs)]
    methods = labels + peers
    same = [(lbl, q) for lbl, q in FIELD if lbl in labels and q in peers]
    lines += ["## AUROC (%) on the package streams", ""]
    for p in PROBS:
        lines += [
            f"### p = {p}",
            "",
            "| data set | " + " | ".join(methods) + " |",
            "|---" * (1 + len(methods)) + "|",
        ]
        for d in DATASETS:
            if any(("package", d, p, m) in runs for m in methods):
                vals = [_ms(runs.get(("package", d, p, m), []), "auroc") for m in methods]
                lines.append(f"| {d} | " + " | ".join(vals) + " |")
        lines.append("")
    lines += [
        "OLVF's AUROC: the package returns |w . x|; it is signed here by OLVF's prediction.",
        "",
        "## Rows/s (CPU time of the calling thread; median over p and runs, package streams)",
        "",
        "| data set | "
        + " | ".join(methods)
        + f" | `{RECOMMENDED}` / fastest peer | "
        + " | ".join(f"`{lbl}` / {q.upper()}" for lbl, q in same)
        + " |",
        "|---" * (2 + len(methods) + len(same)) + "|",
    ]
    for d in DATASETS:
        vals, speed = [], {}
        for m in methods:
            rs = [r for p in PROBS for r in runs.get(("package", d, p, m), [])]
            if rs:
                speed[m] = float(np.median([r["rows_per_s"] for r in rs]))
            vals.append(f"{speed[m]:,.0f}" if m in speed else "-")
        theirs = [speed[m] for m in peers if m in speed]
        vals.append(
            f"{speed[RECOMMENDED] / max(theirs):,.1f}x" if RECOMMENDED in speed and theirs else "-"
        )
        for lbl, q in same:  # evofeat's version of a method against the package's
            vals.append(f"{speed[lbl] / speed[q]:,.0f}x" if lbl in speed and q in speed else "-")
        if speed:
            lines.append(f"| {d} | " + " | ".join(vals) + " |")
    lines += [
        "",
        "evofeat: the `prequential` call on a prebuilt stream (conversion to the compiled "
        "loop's chunks, then the loop). Peers: the package's runner "
        "(`model(dataset, params, seed)`), which includes its per-row iterator and, for OVFM, "
        "its pass over the data to find the continuous features. One thread each "
        "(OMP/BLAS threads = 1) under `nice -n 19` on a shared 2-core machine: indicative.",
        "",
        "Not run here: OCDS, OVFM and DynFo on magic04 and a8a (hours per run on this "
        "machine); NB3, FAE, ORF3V, Aux-Net and Aux-Drop (the published table has them).",
        "",
    ]
    (out / "haphazard_review.md").write_text("\n".join(lines))
    print(f"wrote {out / 'haphazard_review.md'}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--p", default=",".join(map(str, PROBS)))
    ap.add_argument("--streams", default=",".join(STREAMS), help="package, review or both")
    ap.add_argument(
        "--methods", default=",".join([c[0] for c in CONTENDERS] + [f[0] for f in FIELD])
    )
    ap.add_argument("--peers", default=",".join(PEERS), help="'none' for evofeat only")
    ap.add_argument(
        "--review-peers", default="olvf", help="peers also run on the review's own streams"
    )
    ap.add_argument("--runs", type=int, default=RUNS)
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--fresh", action="store_true", help="discard stored runs")
    ap.add_argument("--render", action="store_true", help="only rewrite the report")
    ap.add_argument(
        "--demo", action="store_true", help="run `evofeat demo` for the Targets, then render"
    )
    ap.add_argument(
        "--check-olvf", action="store_true", help="compare the package's OLVF with half-step PA-I"
    )
    args = ap.parse_args(argv)
    args.datasets = [d for d in args.datasets.split(",") if d]
    args.p = [float(p) for p in args.p.split(",")]
    args.streams = [st for st in STREAMS if st in args.streams.split(",")]
    args.methods = args.methods.split(",")
    args.peers = [] if args.peers == "none" else args.peers.split(",")
    args.review_peers = [] if args.review_peers == "none" else args.review_peers.split(",")
    args.out.mkdir(parents=True, exist_ok=True)
    if args.check_olvf:
        check_olvf(args)
    elif args.demo:
        run_demo(args.out)
        render(args.out)
    elif args.render:
        render(args.out)
    else:
        run(args)


if __name__ == "__main__":
    main()
