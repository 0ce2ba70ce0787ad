"""LOFS exactness: do the ``variant="lofs"`` selectors select what LOFS's own code selects?

LOFS (github.com/kuiy/LOFS) was run under Octave 7.3 on its own example data
(``spect.mat``, ``wdbc.mat``) and on the first 300 columns of
``colon-discretized`` by ``benchmarks/investigations/lofs_oracle.m``; its
selections are kept in ``tests/data/lofs/oracle.tsv``. This script runs
evofeat's selectors with ``variant="lofs"`` on the same data and prints, run by
run, LOFS's selection, ours, and whether they are the same.

    python benchmarks/investigations/lofs_exactness.py            # the table
    python benchmarks/investigations/lofs_exactness.py --export DIR   # data for the .m script

wdbc and colon-discretized come from the shared data folder (set
``EVOFEAT_DATA``); the runs that need them are skipped without it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from evofeat.selection import OSFS, SAOLA, AlphaInvesting, FastOSFS
from evofeat.selection.citests import lofs_codes

HERE = Path(__file__).resolve().parents[2] / "tests" / "data" / "lofs"


def spect() -> np.ndarray:
    """LOFS's ``spect.mat``: 267 x 23, values 1..2, the class in the last column."""
    return np.loadtxt(HERE / "spect.csv", delimiter=",", dtype=np.int64)


def wdbc() -> tuple[np.ndarray, np.ndarray]:
    """UCI wdbc: the values of LOFS's ``wdbc.mat``, the class as it codes it (B = 1, M = 0)."""
    from evofeat.datasets import load

    ds = load("wdbc")
    return np.asarray(ds.X, dtype=np.float64), (np.asarray(ds.y) != 1).astype(np.float64)


def colon300() -> tuple[np.ndarray, np.ndarray]:
    """The first 300 columns of colon-discretized as LOFS codes (1..3), the class as 1..2."""
    from evofeat.datasets import load

    ds = load("colon-discretized")
    X = np.asarray(ds.X)[:, :300]
    codes = np.column_stack([lofs_codes(X[:, j]) for j in range(X.shape[1])])
    return codes, lofs_codes(np.asarray(ds.y), label=True)


def oracle(files: tuple[str, ...] = ("oracle.tsv", "oracle_differ.tsv")) -> dict[str, list[int]]:
    """LOFS's selections by run name, 1-based as LOFS prints them.

    ``oracle.tsv`` is written by ``lofs_oracle.m``, ``oracle_differ.tsv`` by
    ``lofs_oracle.m ... differ`` (the runs of :func:`candidates` where our two variants differ).
    """
    out: dict[str, list[int]] = {}
    for file in files:
        for line in (HERE / file).read_text().splitlines():
            name, _, sel = line.partition("\t")
            out[name] = [int(v) for v in sel.split()]
    return out


def candidates() -> list[str]:
    """Runs tried for the second oracle; it keeps those where ours differ by variant.

    Alpha-investing on spect (267, 150, 80 rows), wdbc's first 100/200/300 rows and colon300;
    OSFS and Fast-OSFS on spect's first 200/100/50 rows (G2 and chi2, alpha 0.01 and 0.05) and
    colon300 at alpha 0.01; the Fisher-z selectors on wdbc's first 100/200 rows.
    """
    runs = [f"{d}/alpha_investing" for d in ("spect267", "spect150", "spect80")]
    runs += [f"wdbc{r}/alpha_investing" for r in (100, 200, 300)] + ["colon300/alpha_investing"]
    for data, alphas in (("spect200", "0.01 0.05"), ("spect100", "0.01 0.05"),
                         ("spect50", "0.01 0.05"), ("colon300", "0.01")):  # fmt: skip
        runs += [
            f"{data}/{m}/{t}/{a}"
            for t in ("g2", "chi2")
            for a in alphas.split()
            for m in ("osfs_d", "fast_osfs_d")
        ]
    runs += [
        f"wdbc{r}/{m}/{a}"
        for r in (100, 200)
        for a in ("0.01", "0.05")
        for m in ("osfs_z", "fast_osfs_z", "saola_z_test")
    ]
    return runs


def ours(name: str, variant: str = "lofs") -> list[int] | None:
    """Our selection (1-based) for a run of the oracle, or None when its data are missing."""
    data, method, *rest = name.split("/")
    if data.startswith("spect"):
        d = spect()[: int(data[5:])]
        X, y = d[:, :-1], d[:, -1]
    else:
        try:
            X, y = colon300() if data == "colon300" else wdbc()
        except Exception:  # noqa: BLE001 - data set absent: the run is skipped
            return None
        if data.startswith("wdbc") and data != "wdbc":  # wdbcN: the first N rows
            X, y = X[: int(data[4:])], y[: int(data[4:])]
    makers: dict[str, Callable[[], object]] = {
        "osfs_d": lambda: OSFS(alpha=float(rest[1]), test=rest[0], variant=variant),
        "fast_osfs_d": lambda: FastOSFS(alpha=float(rest[1]), test=rest[0], variant=variant),
        "osfs_z": lambda: OSFS(alpha=float(rest[0]), variant=variant),
        "fast_osfs_z": lambda: FastOSFS(alpha=float(rest[0]), variant=variant),
        "saola_z_test": lambda: SAOLA(alpha=float(rest[0]), variant=variant),
        "alpha_investing": lambda: AlphaInvesting(variant=variant),
    }
    sel = makers[method]()
    sel.fit(X, y)  # type: ignore[attr-defined]
    return [j + 1 for j in sel.selected_]  # type: ignore[attr-defined]


def export(folder: Path) -> None:
    """Write the data sets the Octave script reads that LOFS does not ship."""
    folder.mkdir(parents=True, exist_ok=True)
    X, y = wdbc()
    np.savetxt(folder / "wdbc_ours.csv", np.column_stack([X, y]), delimiter=",", fmt="%.10g")
    C, yc = colon300()
    np.savetxt(folder / "colon300_codes.csv", np.column_stack([C, yc]), delimiter=",", fmt="%d")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--export", type=Path, help="write the data for lofs_oracle.m to this folder")
    ap.add_argument(
        "--candidates",
        action="store_true",
        help="print the candidate runs where variant=lofs and variant=textbook select differently",
    )
    args = ap.parse_args(argv)
    if args.candidates:
        for name in candidates():
            lofs, text = ours(name), ours(name, "textbook")
            if lofs is not None and lofs != text:
                print(f"{name}\tlofs {lofs}\ttextbook {text}")
        return 0
    if args.export:
        export(args.export)
        return 0
    same = same_textbook = total = 0
    print("| run | LOFS | evofeat variant=lofs | same | evofeat variant=textbook | same |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, want in oracle().items():
        got = ours(name)
        if got is None:
            print(f"| {name} | {want} | (data missing) | - | | |")
            continue
        text = ours(name, "textbook")
        total += 1
        same += got == want
        same_textbook += text == want
        print(
            f"| {name} | {want} | {got} | {'yes' if got == want else 'NO'} | {text} "
            f"| {'yes' if text == want else 'no'} |"
        )
    print(f"\nvariant=lofs: {same} of {total} runs select exactly what LOFS selects")
    print(f"variant=textbook: {same_textbook} of {total}")
    return 0 if same == total else 1


if __name__ == "__main__":
    sys.exit(main())
