"""``--protocol stsd-published``: 4 stages everywhere and C per data set (issue 14, stsd_gaps.md)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from evofeat.cli import main
from evofeat.experiments.protocols import STSD_FRACTIONS_4, STSD_FRACTIONS_10, setting


def test_published_magic04_runs_four_stages_at_c_01() -> None:
    s = setting("stsd-published", "magic04", "stsd-i")
    assert s.scenario_params["fractions"] == STSD_FRACTIONS_4 and len(STSD_FRACTIONS_4) == 4
    assert s.params["C"] == 0.1


def test_published_c_per_data_set_and_learner() -> None:
    c = {(d, m): setting("stsd-published", d, m).params["C"] for d in ("a8a", "splice", "german")
         for m in ("stsd-i", "stsd-i-all", "stsd-ii")}  # fmt: skip
    assert c[("a8a", "stsd-i")] == 0.1 and c[("a8a", "stsd-i-all")] == 1.0  # the a8a drivers'
    assert c[("splice", "stsd-i")] == c[("splice", "stsd-i-all")] == 1.0
    assert c[("splice", "stsd-ii")] == c[("a8a", "stsd-ii")] == 1e-4  # STSD-II keeps the drivers'
    assert c[("german", "stsd-i")] == c[("german", "stsd-i-all")] == 0.01


def test_stsd_authors_is_unchanged() -> None:
    s = setting("stsd-authors", "magic04", "stsd-i")
    assert s.scenario_params["fractions"] == STSD_FRACTIONS_10 and s.params["C"] == 0.1
    assert setting("stsd-authors", "magic04", "stsd-i-all").params["C"] == 0.1
    assert setting("stsd-authors", "a8a", "stsd-i-all").params["C"] == 0.1
    assert (
        setting("stsd-authors", "splice", "stsd").scenario_params["fractions"] == STSD_FRACTIONS_10
    )
    g = setting("stsd-authors", "german", "stsd-i")
    assert g.params["C"] == 0.01 and g.scenario_params["fractions"] == STSD_FRACTIONS_4
    # on german the two protocols are the same runs (the authors' german driver)
    assert setting("stsd-published", "german", "stsd-i") == g


def test_published_protocol_gives_the_investigations_svmguide3_cell() -> None:
    # stsd_gaps.md: svmguide3 STSD-I-all on 4 stages at C = 1, 20 orders: 357.1 ± 8.0 (paper 360.9)
    args = ["run", "--protocol", "stsd-published", "--learner", "stsd-i-all"]
    args += ["--dataset", "svmguide3", "--repeats", "20", "--format", "json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)["mistakes"]
    assert (round(got["mean"], 1), round(got["std"], 1)) == (357.1, 8.0)
