"""State Punishment results: episode statistics and paper figures
(docs/rules/state_punishment.md).

``statistics`` gives one row per episode from the model's DataCollector rows:

* ``turns``: turns played;
* ``mean_p`` / ``final_p``: punishment level averaged over the turns / at the end;
* ``votes_up`` / ``votes_down``: votes cast in the episode;
* ``collected``: resources collected; ``harm``: social harm dealt (each receiver counted);
* ``punishment`` / ``vote_cost``: their totals (negative); ``mean_reward``: per agent.

``FIGURES``: ``punishment_over_time`` -- where does the voted punishment level go during an
episode for each mix of civic voters and greedy foragers (one line each), and does the start
matter (one panel per ``initial_punishment``)? ``harm_vs_initial_punishment`` -- does
starting with a higher punishment level reduce the social harm done in an episode, for each
mix?
"""

import pandas as pd
from matplotlib.figure import Figure

from dilemmas.analysis.figures.colours import STATE_PUNISHMENT_GRID, STATE_PUNISHMENT_RESOURCES
from dilemmas.analysis.figures.paper import behaviour_notes, lines_in_panels, require
from dilemmas.analysis.studies import results
from dilemmas.models.state_punishment.rules import KINDS

#: Every colour the dashboard draws the world in: its grid and resources
#: (``Game.world_colours``).
WORLD_COLOURS = (*STATE_PUNISHMENT_GRID.values(), *STATE_PUNISHMENT_RESOURCES.values())

#: The range of each episode statistic (``Game.ranges``, for confidence intervals that stay
#: inside it), from the rules: punishment levels in [0, 1]; turns, votes, resources and the
#: harm dealt (every kind's harm is positive) from 0; the punishment and vote cost totals are
#: sums of values <= 0 (``punishment_magnitude <= 0``, ``vote_cost >= 0``); the mean reward
#: can take either sign.
RANGES = {"turns": (0, None), "mean_p": (0, 1), "final_p": (0, 1), "votes_up": (0, None),
          "votes_down": (0, None), "collected": (0, None), "harm": (0, None),
          "punishment": (None, 0), "vote_cost": (None, 0), "mean_reward": (None, None)}


def statistics(turns: pd.DataFrame, run: str = "RunId") -> pd.DataFrame:
    """One row per episode (index ``run``) from the model's rows of every turn: the columns
    of the module docstring."""
    played = turns[turns["turn"] >= 1]
    last = turns.sort_values("turn").groupby(run).last()
    return pd.DataFrame({
        "turns": last["turn"],
        "mean_p": played.groupby(run)["punishment_level"].mean(),
        "final_p": last["punishment_level"],
        "votes_up": last["cumulative_votes_up"],
        "votes_down": last["cumulative_votes_down"],
        "collected": last[[f"collected_{kind}" for kind in KINDS]].sum(axis=1),
        "harm": last["social_harm_generated"],
        "punishment": last["punishment_total"],
        "vote_cost": last["vote_cost_total"],
        "mean_reward": last["mean_reward"],
    })


#: Why the punishment level goes where it goes (docs/rules/state_punishment.md,
#: "Behaviours"), for the behaviours of the mixes shown.
VOTE_NOTES = {
    "civic_voter": "civic voters vote p up only once harm done to them is pending (at least "
                   "0.5; they avoid the most harmful kinds A, B and D themselves) and down "
                   "only while p is at least 0.5, so on their own they bring a high start "
                   "down below 0.5 and hold it there",
    "greedy_forager": "a greedy forager votes p down whenever punishment is what makes a "
                      "visible resource not worth taking, so any greedy forager pulls p "
                      "towards 0, and civic voters push it back up only after harm",
    "random": "random agents vote up and down alike, by chance",
}
#: Why the harm differs between mixes, for the behaviours of the mixes shown.
HARM_NOTES = {
    "greedy_forager": "greedy foragers take whatever pays after punishment, the harmful "
                      "kinds included, and vote punishment down within a few turns "
                      "(punishment_over_time), so harm grows with their number and the "
                      "initial level matters little",
    "civic_voter": "civic voters avoid the most harmful kinds (A, B and D)",
    "random": "random agents collect whatever they step on",
}


def punishment_over_time(folder) -> Figure:
    """Mean punishment level against turn (binned), one line per population, one panel per
    initial punishment level."""
    rows = results.load(folder)
    return lines_in_panels(
        folder, rows, x="turn", y="punishment_level", line="population",
        panel="initial_punishment", bounds=(0, 1), window="auto",
        title="State Punishment: punishment level over an episode",
        caption="The punishment level p (the probability that collecting a taboo resource is "
                "punished, set by the agents' votes) during an episode, one line per mix of "
                "behaviours (solid: one behaviour; dashed with open markers: a mix, in the "
                "colour of its larger part), one panel per initial level. "
                + behaviour_notes(rows["population"] if "population" in rows else [],
                                  VOTE_NOTES),
        xlabel="turn", ylabel="punishment level (probability)", line_title="population",
        panel_title="initial punishment")


def harm_vs_initial_punishment(folder) -> Figure:
    """Social harm per episode against the initial punishment level, one line per
    population."""
    require(folder, "harm_vs_initial_punishment", "initial_punishment")
    table = results.episodes(folder)
    return lines_in_panels(
        folder, table, x="initial_punishment", y="harm", line="population",
        title="State Punishment: social harm against initial punishment",
        caption="Social harm dealt in an episode (each receiver counted) against the "
                "punishment level p it starts with, one line per mix of behaviours (solid: "
                "one behaviour; dashed with open markers: a mix, in the colour of its larger "
                "part). "
                + behaviour_notes(table["population"] if "population" in table else [],
                                  HARM_NOTES),
        xlabel="initial punishment level (probability)",
        ylabel="social harm dealt (per episode)", line_title="population")


FIGURES = {"punishment_over_time": punishment_over_time,
           "harm_vs_initial_punishment": harm_vs_initial_punishment}
