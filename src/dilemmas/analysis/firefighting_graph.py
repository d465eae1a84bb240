"""Firefighting Graph results: episode statistics and paper figures
(docs/rules/firefighting_graph.md).

``statistics`` gives one row per episode from the model's DataCollector rows:

* ``steps``: length of the episode (it ends early when every house is at 0);
* ``mean_fire`` / ``final_fire``: mean house level over the steps / at the end;
* ``burning``: houses burning at the end; ``doubled``: houses with two or more firefighters
  per step; ``flame_rate``: share of flame observations;
* ``mean_reward``: mean cumulative reward per firefighter.

``FIGURES``: ``fire_over_time`` -- how much fire does each behaviour leave in the town as the
episode goes on (one panel per ``p_ignite``)? ``fire_vs_ignition`` -- how does the ignition
probability ``p_ignite`` change the mean fire of an episode, for each behaviour?
"""

import pandas as pd
from matplotlib.figure import Figure

from dilemmas.analysis.studies import results
from dilemmas.analysis.figures.colours import fire_shades
from dilemmas.analysis.figures.paper import behaviour_notes, lines_in_panels, require, study_value
from dilemmas.models.firefighting_graph.model import FirefightingGraphModel

#: Every colour the dashboard draws the world in: 21 shades of fire, none to the most
#: (``Game.world_colours``).
WORLD_COLOURS = tuple(fire_shades(21))

#: The range of each episode statistic (``Game.ranges``, for confidence intervals that stay
#: inside it), from the rules: steps, fire levels and house counts from 0 (their upper ends,
#: ``max_fire_level`` and the number of houses, depend on the parameters), ``flame_rate`` in
#: [0, 1]; every reward is minus a fire level, so the mean reward is at most 0.
RANGES = {"steps": (0, None), "mean_fire": (0, None), "final_fire": (0, None),
          "burning": (0, None), "doubled": (0, None), "flame_rate": (0, 1),
          "mean_reward": (None, 0)}


def statistics(steps: pd.DataFrame, run: str = "RunId") -> pd.DataFrame:
    """One row per episode (index ``run``) from the model's rows of every step: the columns
    of the module docstring."""
    played = steps[steps["step"] >= 1]
    last = steps.sort_values("step").groupby(run).last()
    return pd.DataFrame({
        "steps": last["step"],
        "mean_fire": played.groupby(run)["mean_fire"].mean(),
        "final_fire": last["mean_fire"],
        "burning": last["burning_houses"],
        "doubled": played.groupby(run)["doubled_houses"].mean(),
        "flame_rate": played.groupby(run)["flame_rate"].mean(),
        "mean_reward": last["mean_reward"],
    })


def _fire_label(folder, what: str) -> str:
    """``what`` with the fire scale, e.g. "mean fire level (house level 0-100)"."""
    study = results.definition(folder)
    if not {"max_fire_level", "preset"} & set(study["sweep"]):
        try:
            model = FirefightingGraphModel(**study["fixed"], rng=0, collect_data=False)
            return f"{what} (0\u2013{model.max_fire_level})"
        except (TypeError, ValueError):
            pass
    return f"{what} (house level)"


#: Why each behaviour leaves the fire it does over an episode, on the row (the default
#: layout) with the default ``cognac`` preset (docs/rules/firefighting_graph.md, "Round" and
#: "Behaviours"; dilemmas/agents/firefighting_graph.py).
FIRE_NOTES = {
    "belief_tracker": "belief_tracker ends with the most fire by doing well for itself (a "
                      "firefighter's reward is minus the level of the house it visits): the "
                      "two firefighters of each pair meet at the house they share, put it out "
                      "at once (two firefighters set a burning house to 0, p_two_agents = 1) "
                      "and mostly stay there, since a house at 0 with a firefighter cannot "
                      "catch fire and is the one they believe least likely to burn; the houses "
                      "no pair shares (the even ones, 6 of 11) are never visited again and "
                      "grow, so its curve drops at step 1, then climbs",
    "fixed0": "fixed0 sends firefighter i to house i: each house but the last has one "
              "firefighter, who lowers it one level at a time, and the last burns unguarded: "
              "a slow, steady fall",
    "fixed1": "fixed1 is fixed0 mirrored (the first house is the unguarded one)",
    "random": "random firefighters pick either of their two houses by chance, so the two "
              "guards of an inner house meet there one step in four and put it out: the "
              "least fire, nearly all of it on the two end houses, which have one guard each",
}
#: The same, in brief, for the episode means.
FIRE_NOTES_BRIEF = {
    "belief_tracker": "belief_tracker pairs put out the house they share and then guard "
                      "only it, leaving the houses no pair shares (6 of 11) to burn",
    "fixed0": "fixed0 keeps one firefighter at every house but the last, each lowering its "
              "house one level at a time",
    "fixed1": "fixed1 the same, mirrored",
    "random": "random firefighters often meet two at a house and put it out at once",
}


#: Why the lines hardly rise with ``p_ignite`` in the setting of ``FIRE_NOTES``, and what a
#: fall between two points is (checked: fixed0 on the same 40 seeds has the same mean fire
#: at p_ignite 0.1, 0.3 and 0.5).
IGNITION_NOTE = ("p_ignite changes little here: with the cognac preset's levels of 0 to 100 "
                 "drawn at the start, a house at 0 beside a burning one is rare, so the same "
                 "seeds give fixed0 the same fire at every p_ignite; the differences between "
                 "a line's points, such as fixed0's and belief_tracker's fall, are mostly "
                 "those of each point's own random starting levels (each combination's runs "
                 "have their own seeds): read them with their intervals.")
#: The setting ``FIRE_NOTES`` describe: the default row of 10 firefighters, ``cognac``
#: preset, two firefighters putting a house out for sure (None: the preset's value).
NOTES_SETTING = {"layout": "row", "n_agents": 10, "preset": "cognac", "p_two_agents": None}


def _notes(folder, table, notes=FIRE_NOTES, more="") -> str:
    """The reasons of the behaviours shown (``notes``), in the setting they describe
    (``NOTES_SETTING``; none otherwise), ``more`` before the final full stop."""
    if any(study_value(folder, name) != value for name, value in NOTES_SETTING.items()):
        return ""
    populations = table["population"] if "population" in table else []
    text = behaviour_notes(populations, notes, lead="Why the order, on the row: ")
    return f"{text[:-1]}{more}." if text else ""


def played_out(rows: pd.DataFrame) -> pd.DataFrame:
    """The model rows of every run continued, with ``mean_fire`` 0, to the last step any
    run reached: an episode ends early only when every house is at 0, and from there nothing
    can ignite ("Termination"), so its fire for the steps not played is exactly 0."""
    last = rows["step"].max()
    final = rows[rows["step"] == rows.groupby("run_id")["step"].transform("max")]
    final = final[final["step"] < last]
    if final.empty:
        return rows
    missing = (last - final["step"]).to_numpy()
    pads = final.loc[final.index.repeat(missing)].copy()
    pads["step"] += pads.groupby(level=0).cumcount().to_numpy() + 1
    pads["mean_fire"] = 0.0
    return pd.concat([rows, pads], ignore_index=True)


def fire_over_time(folder) -> Figure:
    """Mean fire level against step (binned), one line per population, one panel per
    ``p_ignite``."""
    rows = played_out(results.load(folder))
    return lines_in_panels(
        folder, rows, x="step", y="mean_fire", line="population", panel="p_ignite",
        panel_title="p_ignite", bounds=(0, None), window="auto",
        title="Firefighting Graph: fire left in the town over an episode",
        caption="Mean fire level of the houses during an episode, one line per behaviour "
                "(every firefighter plays it), one panel per p_ignite. Lower is better. An "
                "episode that ended early (every house at 0, where nothing can ignite again) "
                "counts 0 for its remaining steps. " + _notes(folder, rows),
        xlabel="step", ylabel=_fire_label(folder, "fire level per house"),
        line_title="population")


def fire_vs_ignition(folder) -> Figure:
    """Mean fire per episode against ``p_ignite``, one line per population."""
    require(folder, "fire_vs_ignition", "p_ignite")
    table = results.episodes(folder)
    notes = _notes(folder, table, FIRE_NOTES_BRIEF, more=" (more in fire_over_time)")
    return lines_in_panels(
        folder, table, x="p_ignite", y="mean_fire", line="population",
        title="Firefighting Graph: fire against the ignition probability",
        caption="Mean fire level of the houses over an episode's steps against p_ignite, the "
                "probability that a house at level 0 with no firefighter and a burning "
                "neighbour catches fire; one line per behaviour (every firefighter plays it). "
                "Lower is better. " + notes + (" " + IGNITION_NOTE if notes else ""),
        xlabel="p_ignite (ignition probability per step)",
        ylabel=_fire_label(folder, "fire level per house, episode mean"),
        line_title="population")


FIGURES = {"fire_over_time": fire_over_time, "fire_vs_ignition": fire_vs_ignition}
