"""Why published cells are missed: each paper's explanations and the rows they cover.

This is data, kept in each paper's folder (``papers/<paper>/explanations.json``,
read here as package data). ``EXPLANATIONS[paper]`` maps an explanation id to its text,
the experiment that tests it and what it shows for the cells it covers (a
status of :data:`evofeat.report.compare.STATUSES`: *explained*, *does not
reproduce*, *not comparable*, *needs data*, or *open* while untested);
``RULES[paper]`` assigns an id to a comparison row by patterns on
``table|dataset|method|setting`` (``fnmatch`` syntax; the first match wins).
A rule is narrowed to the cells its explanation was shown on: a cell no
tested rule fits is *open*. An investigation drops its finding in that file: edit
the text and status, name the experiment, point ``note`` at its write-up
under ``docs/reports/investigations/``, and add rules for the rows it
explains.

Examples
--------
>>> from evofeat.report.compare import Row
>>> row = Row("ofs", "table8", "ijcnn1", "PE_trun", "B=0.1", 62283.0, 200.0, 104676.0, 300.0)
>>> explain("ofs", row)
'ofs-table8-protocol'
"""

from __future__ import annotations

import json
from fnmatch import fnmatchcase

from evofeat.papers import NAMES, text
from evofeat.report.compare import Explanation, Row

__all__ = ["EXPLANATIONS", "NEEDS_DATA", "RULES", "explain", "needs_data"]


def _load(paper: str) -> tuple[dict[str, Explanation], list[tuple[str, str]]]:
    """``papers/<paper>/explanations.json``: the explanations by id and the rules in order."""
    data = json.loads(text(paper, "explanations.json"))
    exps = {e["id"]: Explanation(**e) for e in data["explanations"]}
    return exps, [(pattern, eid) for pattern, eid in data["rules"]]


_LOADED = {paper: _load(paper) for paper in NAMES}
EXPLANATIONS: dict[str, dict[str, Explanation]] = {p: e for p, (e, _) in _LOADED.items()}
RULES: dict[str, list[tuple[str, str]]] = {p: r for p, (_, r) in _LOADED.items()}


#: Data the papers used that is not in the shared data: paper's name -> the paper's description.
#: The registry knows each of them (its source, or why there is none); a published cell on one is
#: "not run" with the registry's line (where to get it), and this description when unregistered.
NEEDS_DATA: dict[str, str] = {
    "CIFAR-10": "the OFS paper's airplane/bird subset of 3,992 images x 3,073 features: which "
    "3,073 features (raw pixels plus a bias?) and which 3,992 images is not stated; source "
    "unknown/unverified",
    "KDDCUP08": "KDD Cup 2008 breast cancer (102,294 x 117): source unknown/unverified",
    "codrna": "LIBSVM's cod-rna (271,617 x 8 in the OFS paper): source unverified here",
    "RFID": "the FESL paper's RFID data (the authors' own recording): source unknown",
    "Gisette": "NIPS 2003 feature selection challenge: source unverified here",
    "SensIT Vehicle": "LIBSVM's SensIT Vehicle (combined): source unverified here",
    "Protein": "LIBSVM's protein: source unverified here",
}


def _needs_text(name: str, what: str) -> str:
    """The registry's line for ``name`` (where it is and how to get it), else ``what``."""
    from evofeat.datasets.catalogue import needs_data as registry_needs_data

    try:
        return f"Not run: {registry_needs_data(name)}"
    except Exception:  # not registered: the paper's description is all there is
        return f"Not run: needs data {name} ({what})."


for _name, _what in NEEDS_DATA.items():
    _id = "needs-data-" + _name.lower().replace(" ", "-")
    _text = _needs_text(_name, _what)
    for _paper in ("ofs", "fesl", "opid"):
        EXPLANATIONS[_paper][_id] = Explanation(
            _id, _text, "none until the data is here", "needs data"
        )


def needs_data(dataset: str) -> str:
    """The explanation id of a published data set this project does not hold, or ""."""
    for name in NEEDS_DATA:
        if dataset.lower().replace(" ", "") == name.lower().replace(" ", ""):
            return "needs-data-" + name.lower().replace(" ", "-")
    return ""


def explain(paper: str, row: Row) -> str:
    """The explanation id of ``row`` under ``RULES[paper]``, or "".

    A cell outside 2σ gets the first rule it matches; a cell within 2σ only
    an explanation whose ``scope`` is ``"all"`` (data that is not the
    paper's: not comparable however close).

    >>> explain("fesl", Row("fesl", "table2", "r.EN-FR", "NOGD", "c=10", 0.902, 0.004, 0.901, 0.01))
    'fesl-reuters-sample'
    """
    if row.verdict == "not run":
        return needs_data(row.dataset)
    key = f"{row.table}|{row.dataset}|{row.method}|{row.setting}"
    found = next((e for pat, e in RULES.get(paper, []) if fnmatchcase(key, pat)), "")
    if row.verdict == "outside 2σ":
        return found
    e = EXPLANATIONS.get(paper, {}).get(found)
    return found if e is not None and e.scope == "all" else ""
