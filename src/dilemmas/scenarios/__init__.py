"""A benchmark suite: named, versioned scenarios of the four games (docs/scenarios.md).

In the manner of Melting Pot, a scenario is a game's *substrate* (fixed parameters), the
*focal* seats that the policy under test plays, and a *background* of co-players it never
trained with (scripted behaviours and trained bots shipped in the package), scored by the
focal and background per-capita returns and the game's own statistics. Its id
(``bucket_brigade/free_riders_v2``) changes whenever anything that changes its scores
changes (``versions.json``, checked by the tests).

* ``dilemmas.scenarios.catalogue``: the scenarios, read from ``catalogue/<game>.toml``;
* ``dilemmas.scenarios.scoring``: a policy or behaviour played on a scenario as a study;
* ``dilemmas.scenarios.baselines``: the stored baselines (``baselines.csv``) and how they
  are recomputed (``dilemmas baselines``);
* ``dilemmas.scenarios.figures``: a figure per game of a policy against the baselines.

This layer sits above ``dilemmas.learning``: its baselines train deep learners.
"""

from dilemmas.scenarios.catalogue import Scenario, ScenarioError, scenarios, select

__all__ = ["Scenario", "ScenarioError", "scenarios", "select"]
