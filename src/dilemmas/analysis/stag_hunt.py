"""Stag Hunt results: episode statistics and paper figures (docs/rules/stag_hunt.md).

``statistics`` gives one row per episode from the model's DataCollector rows:

* ``turns``: turns played;
* ``stags`` / ``hares``: resources defeated; ``coordinated``: stags killed on a turn in which
  two or more agents hit them; ``stag_share``: stags / all defeats (NaN with none);
* ``attacks`` / ``punishments``: actions fired in the episode; ``removals``: agents removed;
* ``mean_reward``: mean cumulative reward of the agents that played.

``FIGURES``: ``coordinated_kills_vs_heal_delay`` -- how often do hunters kill stags
together, and does stag healing (``heal_delay``, 0 = never heals) change it, for each
behaviour? All stag kills (left panel) beside the coordinated ones (right panel): healing is
what stops a lone hunter from killing stags. ``catch_by_behaviour`` -- what does each
behaviour catch: stags, hares, or neither?
"""

import pandas as pd
from matplotlib.figure import Figure

from dilemmas.analysis.studies import results
from dilemmas.analysis.figures.colours import (BEAM_OPACITY, STAG_HUNT_BEAMS, STAG_HUNT_GRID,
                                              STAG_HUNT_RESOURCES, over_white)
from dilemmas.analysis.figures.paper import (bars, behaviour_notes, lines_in_panels, require,
                                             study_value)

#: Every colour the dashboard draws the world in, as it is seen: its grid, resources and
#: beams, and the beams over white (``Game.world_colours``).
WORLD_COLOURS = (*STAG_HUNT_GRID.values(), *STAG_HUNT_RESOURCES.values(), *STAG_HUNT_BEAMS.values(),
                 *(over_white(c, BEAM_OPACITY) for c in STAG_HUNT_BEAMS.values()))

#: The range of each episode statistic (``Game.ranges``, for confidence intervals that stay
#: inside it), from the rules: the counts from 0, ``stag_share`` in [0, 1]; the mean reward
#: can take either sign (``stag_reward`` and ``hare_reward`` may be any finite number, costs
#: are subtracted).
RANGES = {"turns": (0, None), "stags": (0, None), "hares": (0, None),
          "coordinated": (0, None), "stag_share": (0, 1), "attacks": (0, None),
          "punishments": (0, None), "removals": (0, None), "mean_reward": (None, None)}


def statistics(turns: pd.DataFrame, run: str = "RunId") -> pd.DataFrame:
    """One row per episode (index ``run``) from the model's rows of every turn: the columns
    of the module docstring."""
    last = turns.sort_values("turn").groupby(run).last()
    totals = turns.groupby(run)[["attacks", "punishments"]].sum()
    return pd.DataFrame({
        "turns": last["turn"],
        "stags": last["stags_defeated"],
        "hares": last["hares_defeated"],
        "coordinated": last["coordinated_stag_kills"],
        "stag_share": last["stag_share"],
        "attacks": totals["attacks"],
        "punishments": totals["punishments"],
        "removals": last["removals"],
        "mean_reward": last["mean_reward"],
    })


#: Why each behaviour kills stags as it does (docs/rules/stag_hunt.md, "Behaviours").
KILL_NOTES = {
    "random": "random and hare_hunter hit stags only by chance",
    "hare_hunter": "random and hare_hunter hit stags only by chance",
    "stag_hunter": "stag_hunter hunts alone and leaves the stags within another hunter's "
                   "reach, so it never strikes together with another hunter",
    "cooperator": "cooperator waits at a stag for a partner and strikes in the same turn",
}
#: The two panels of ``coordinated_kills_vs_heal_delay``: label -> episode statistic.
KILLS = {"all stag kills": "stags",
         "coordinated kills (2+ hunters hit it that turn)": "coordinated"}


def _healing_note(folder) -> str:
    """Why healing separates lone from coordinated kills, for the study's stag health and
    attack cooldown (the reason holds as stated only for the defaults, 2 and 1)."""
    health, cooldown = (study_value(folder, p) for p in ("stag_health", "attack_cooldown"))
    if (health, cooldown) != (2, 1):
        return ""
    return ("A stag takes stag_health = 2 hits and a hunter strikes at most every other turn "
            "(attack_cooldown = 1), so a stag that heals within two turns cannot be killed "
            "by a lone hunter: only heal_delay 0 leaves lone kills, the gap between the "
            "panels. ")


def _resources_note(folder) -> str:
    """What a stag and a hare take and pay, in this study (parts it sweeps left out)."""
    values = {p: study_value(folder, p)
              for p in ("stag_health", "stag_reward", "hare_health", "hare_reward")}
    if None in values.values():
        return ""
    return (f"A stag takes {values['stag_health']:g} hits and pays {values['stag_reward']:g}, "
            f"a hare {values['hare_health']:g} and pays {values['hare_reward']:g}. ")


def coordinated_kills_vs_heal_delay(folder) -> Figure:
    """Stag kills per episode against ``heal_delay``, one line per population: all of them
    (left panel) and the coordinated ones (right panel)."""
    require(folder, "coordinated_kills_vs_heal_delay", "heal_delay")
    table = results.episodes(folder)
    kills = pd.concat([table.assign(kind=kind, kills=table[column])
                       for kind, column in KILLS.items()], ignore_index=True)
    kills["kind"] = pd.Categorical(kills["kind"], categories=list(KILLS), ordered=True)
    return lines_in_panels(
        folder, kills, x="heal_delay", y="kills", line="population", panel="kind",
        bounds=(0, None),
        title="Stag Hunt: stag kills against stag healing",
        caption="Stags killed per episode against heal_delay, the turns after its last hit "
                "at which a wounded stag heals (0: never); left all stag kills, right the "
                "coordinated ones, in which two or more hunters hit the stag in the same "
                "turn; one line per behaviour (every seat plays it). " + _healing_note(folder)
                + behaviour_notes(table["population"] if "population" in table else [],
                                  KILL_NOTES, lead=""),
        xlabel="heal_delay (turns until a hit stag heals; 0 = never)",
        ylabel="stag kills (per episode)", line_title="population")


#: What each behaviour goes for (docs/rules/stag_hunt.md, "Behaviours").
CATCH_NOTES = {
    "random": "random moves and attacks by chance",
    "hare_hunter": "hare_hunter goes for hares",
    "stag_hunter": "stag_hunter hunts stags alone, which kills them only where stags never "
                   "heal (heal_delay 0)",
    "cooperator": "cooperator waits at a stag for a partner to strike with",
}


def catch_by_behaviour(folder) -> Figure:
    """Stags and hares defeated per episode by population (grouped bars)."""
    require(folder, "catch_by_behaviour", "population")
    table = results.episodes(folder)
    return bars(
        folder, table, columns=["stags", "hares"], names=["stags", "hares"],
        category="population", legend_title="defeated",
        colours_of=[STAG_HUNT_RESOURCES["stag"], STAG_HUNT_RESOURCES["hare"]],
        title="Stag Hunt: what each behaviour catches",
        caption="Stags (brown) and hares (tan) defeated per episode, by behaviour (every "
                "seat plays it). " + _resources_note(folder) + behaviour_notes(table["population"], CATCH_NOTES, lead=""),
        xlabel="population (behaviour)", ylabel="resources defeated (per episode)")


FIGURES = {"coordinated_kills_vs_heal_delay": coordinated_kills_vs_heal_delay,
           "catch_by_behaviour": catch_by_behaviour}
