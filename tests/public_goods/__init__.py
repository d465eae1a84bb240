"""Public Goods: a fifth game that exists only for the tests (its rules: ``rules.md``).

It proves that a game defined and registered outside ``models/`` -- here, entirely in this
folder -- passes the contract suite and works in ``dilemmas games``, the runner and the
dashboard with no other file touched. ``tests/conftest.py`` imports it, which registers it.
Everything a game contributes is here: the model with its parameters, its behaviours, its
episode statistics, a figure, a dashboard view, an example study, its rules, and the
interface that makes it a PettingZoo environment with a ``policy`` behaviour.
"""

from pathlib import Path

import mesa
import numpy as np
import pandas as pd

from dilemmas.agents.policy import take_decision
from dilemmas.analysis.studies import results
from dilemmas.analysis.figures.paper import bars, pooled, require
from dilemmas.dashboard import Swatch, View, agent_colour, behaviour_swatches
from dilemmas.dashboard.charts import Plot, Series
from dilemmas.dashboard.scene import Rect, Scene, Text
from dilemmas import Benchmark, Game, register
from dilemmas.models.interface import Interface
from dilemmas.models.learners import learner_parameter
from dilemmas.models.policies import policy_parameter
from dilemmas.models.parameters import (MAX_STEPS, Integer, Parameter, Parameters, Population, Real,
                               Select, Slider)
from dilemmas.models.phases import AgentPhase, ModelPhase, PhasedModel

HERE = Path(__file__).parent
MIXES = ("random", "cooperate", "defect", "policy:2,defect:2", "cooperate:2,defect:2")

PARAMETERS = Parameters((
    Parameter("num_agents", 4, Integer(low=2, high=20), "players", control=Slider(2, 10)),
    Parameter("population", "random", Population(count="num_agents"),
              "behaviour of each seat", control=Select(MIXES)),
    policy_parameter(),
    learner_parameter(),
    Parameter("multiplier", 1.6, Real(low=0), "factor on the pot before it is shared",
              control=Slider(0.0, 4.0, 0.1)),
    Parameter("endowment", 1.0, Real(low=0), "what each player may contribute per round"),
    Parameter("max_steps", 20, Integer(low=1, high=MAX_STEPS), "rounds in an episode"),
))


class PublicGoodsModel(PhasedModel):
    """Each round every player contributes its endowment or keeps it; the pot, times the
    multiplier, is shared equally (rules.md)."""

    parameters = PARAMETERS
    model_reporters = ("round", "contributors", "cooperation_rate", "mean_reward")
    agent_reporters = ("behaviour", "contributed", "reward")
    phases = (
        ModelPhase("open", method="open_round"),
        AgentPhase("contribute", "choose", order="simultaneous", apply="collect"),
        ModelPhase("share"),
        ModelPhase("terminate"),
    )

    def __init__(self, *, collect_data=True, rng=None, **parameters):
        super().__init__(rng=rng, collect_data=collect_data)
        self.set_parameters(parameters)
        behaviours = self.seat_behaviours(self.num_agents)
        self.seats = tuple(cls(self, seat) for seat, cls in enumerate(behaviours))
        self.round = self.contributors = 0
        self.cooperation_rate = float("nan")
        self.mean_reward = 0.0
        self.start_data_collection()

    def open_round(self):
        self.round += 1

    def collect(self, decisions):
        for agent, contributes in decisions.items():
            if not isinstance(contributes, bool):
                raise ValueError(f"agent {agent.seat} ({agent.behaviour}) chose "
                                 f"{contributes!r}; a choice is True or False")
            agent.contributed = contributes
        self.contributors = sum(agent.contributed for agent in self.seats)
        self.cooperation_rate = self.contributors / self.num_agents

    def share(self):
        share = self.multiplier * self.endowment * self.contributors / self.num_agents
        for agent in self.seats:
            agent.reward += share + (0.0 if agent.contributed else self.endowment)
        self.mean_reward = sum(agent.reward for agent in self.seats) / self.num_agents

    def terminate(self):
        if self.round >= self.max_steps:
            self.running = False


class Player(mesa.Agent):
    """A player in seat ``seat``."""

    behaviour = ""

    def __init__(self, model, seat):
        super().__init__(model)
        self.seat, self.contributed, self.reward = seat, None, 0.0


class RandomPlayer(Player):
    """Contributes with probability 1/2."""

    behaviour = "random"

    def choose(self):
        return self.random.random() < 0.5


class Cooperator(Player):
    """Always contributes."""

    behaviour = "cooperate"

    def choose(self):
        return True


class Defector(Player):
    """Never contributes."""

    behaviour = "defect"

    def choose(self):
        return False


class PolicyPlayer(Player):
    """Plays the model's ``policy`` (action 1: contribute)."""

    behaviour = "policy"
    decision = None
    choose = take_decision


class QLearningPlayer(PolicyPlayer):
    """Learns by tabular Q-learning from its own rewards."""

    behaviour = "q_learning"
    experience, paid = None, 0.0


class LinearQPlayer(PolicyPlayer):
    """Learns by Q-learning linear in its observation, from its own rewards."""

    behaviour = "linear_q"
    experience, paid = None, 0.0


BEHAVIOURS = {cls.behaviour: cls for cls in (RandomPlayer, Cooperator, Defector, PolicyPlayer,
                                             QLearningPlayer, LinearQPlayer)}


class PublicGoodsInterface(Interface):
    """The game for learning agents (rules.md, "Learning agents")."""

    phases = ("contribute",)

    def observation_length(self, model) -> int:
        return 3

    def actions(self, model) -> int:
        return 2

    def vector(self, model, agent, phase) -> np.ndarray:
        shared = 0.0 if model.cooperation_rate != model.cooperation_rate \
            else model.cooperation_rate
        return np.array([shared, float(bool(agent.contributed)),
                         model.round / model.max_steps], dtype=np.float32)

    def feature_names(self, model) -> tuple[str, ...]:
        return ("shared_tenths", "contributed")

    def features(self, model, agent, vector) -> tuple[int, ...]:
        return int(round(float(vector[0]) * 10)), int(vector[1])

    def decode(self, model, agent, phase, action):
        return bool(action)

    def state(self, model, phase) -> np.ndarray:
        return self.vector(model, model.seats[0], phase)[[0, 2]]


#: The range of each episode statistic: every reward of a round is >= 0 (``multiplier`` and
#: ``endowment`` are >= 0), the share contributing is a fraction.
RANGES = {"rounds": (0, None), "cooperation": (0, 1), "mean_reward": (0, None)}


def statistics(rows: pd.DataFrame, run: str = "RunId") -> pd.DataFrame:
    """One row per episode: ``rounds``, ``cooperation`` (mean share contributing) and
    ``mean_reward`` (mean cumulative reward at the end)."""
    played = rows[rows["round"] >= 1]
    last = rows.sort_values("round").groupby(run).last()
    return pd.DataFrame({"rounds": last["round"],
                         "cooperation": played.groupby(run)["cooperation_rate"].mean(),
                         "mean_reward": last["mean_reward"]})


def cooperation_by_mix(folder):
    """Share of players contributing, by behaviour mix."""
    require(folder, "cooperation_by_mix", "population")
    return bars(folder, results.episodes(folder), columns=["cooperation"],
                names=["cooperation"], category="population", bounds=(0, 1),
                title=f"Public goods: cooperation by mix{pooled(folder, 'population')}",
                xlabel="population", ylabel="players contributing (fraction)")


def scene(model) -> Scene:
    """One bar per player: its cumulative reward, in its behaviour's colour, grey when it
    kept its endowment this round."""
    top = max([1.0, *(agent.reward for agent in model.seats)])
    out = Scene(len(model.seats), 4, scale=60)
    for agent in model.seats:
        height = 3.5 * agent.reward / top
        colour = agent_colour(model, agent.behaviour) if agent.contributed else KEPT
        out.add(Rect(agent.seat + 0.15, 3.8 - height, 0.7, height, colour),
                Text(agent.seat + 0.5, 3.9, str(agent.seat), size=12))
    return out


KEPT = "#cccccc"


def key(model) -> list:
    return [*behaviour_swatches(model, "square"), Swatch("kept its endowment", KEPT)]


GAME = register(Game(
    name="public_goods",
    title="Public Goods",
    model=PublicGoodsModel,
    behaviours=BEHAVIOURS,
    statistics=statistics,
    ranges=RANGES,
    figures={"cooperation_by_mix": cooperation_by_mix},
    view=View(scene=scene, key=key,
              plots=(Plot("Cooperation", "rate (fraction of players)",
                          (Series("cooperation_rate", "contributing", "#0072B2"),), high=1.0),
                     Plot("Reward", "reward (mean, cumulative)",
                          (Series("mean_reward", "mean reward", "#000000"),))),
              description="Players each keep an endowment or put it in a pot that is "
                          "multiplied and shared by all."),
    study=HERE / "study.toml",
    rules=HERE / "rules.md",
    round="round",
    benchmarks=[Benchmark("random")],
    interface=PublicGoodsInterface(),
    dilemma=("cooperate", "defect"),
))
