"""Bucket Brigade behaviours, the names ``population`` accepts (docs/rules/bucket_brigade.md,
"Behaviours").

Every behaviour decides from the public observation only: it chooses a signal before any
signal is known, then a ``(house, mode)`` action once tonight's signals are known. A built-in
behaviour is written once, as ``batch_decide``, over the arrays of the observation (the
houses as the night opened, the locations, who worked last night, tonight's signals) for all
its seats at once; on the Mesa model its ``choose_signal`` and ``choose_action`` are that
function on the model's one episode, drawing from ``model.random`` (a Python behaviour reads
``model.observation`` instead, docs/how-to/add-a-behaviour.md).

The heuristic behaviour (``HeuristicAgent``, ten parameters in [0, 1]) decides as follows.
"Fires" are the houses BURNING in the observation; distances are along the ring.

Signal:
  1. Intent. No fire: REST. Otherwise WORK with probability ``w``, where ``w`` starts at
     ``work_tendency``, moves toward 1 by ``own_house_priority`` of the gap when one of its
     own houses burns, and is multiplied by ``1 - fatigue`` if it worked last night.
  2. With probability ``honesty`` it signals its intent, otherwise the opposite.

Action (tonight's signals known):
  1. No fire: rest where it stands.
  2. Helpers: every *other* agent that signalled WORK is expected at the fire nearest to it
     (what ``always_work`` does), giving ``helpers[h]`` per fire.
  3. Target: with probability ``exploration`` a fire chosen uniformly; otherwise the fire
     with the highest score (ties to the lowest index)
     ``own_house_priority*[own] + neighbor_help*[next to an own house, not own]
     + altruism*[not own] + coordination*exp(-kappa*helpers[h])
     - risk_aversion*distance/(num_houses//2)``:
     coordination sends it where the expected helpers leave the most left to do.
  4. Mode. ``cover = 1 - exp(-kappa*helpers[target])`` is the chance the target is saved
     without it. An intent to WORK turns to REST with probability ``rest_bias*cover``
     (free-riding on the others' signals); an intent to REST turns to WORK with probability
     ``altruism*(1 - cover)`` (stepping in where the signals say nobody will).
     It works at the target, or rests where it stands.
"""

import functools
import math
from typing import ClassVar

import mesa
import numpy as np

from dilemmas.agents.decisions import ArrayDecisions, seat_memory
from dilemmas.agents.policy import policy_behaviours
from dilemmas.models.bucket_brigade.rules import BURNING, REST, WORK
from dilemmas.models.xp import namespace


def ring_distance(a: int, b: int, n: int) -> int:
    d = abs(a - b) % n
    return min(d, n - d)


def nearest_fire(houses, location: int) -> int | None:
    """The BURNING house nearest to ``location`` along the ring, ties to the lower index."""
    n = len(houses)
    best, best_distance = None, n
    for h, state in enumerate(houses):
        if state == BURNING:
            d = ring_distance(location, h, n)
            if d < best_distance:
                best, best_distance = h, d
    return best


def nearest_fires(houses, locations):
    """``nearest_fire`` for arrays (numpy or JAX): ``houses`` ``(E, n)``, ``locations``
    ``(E, k)`` -> ``(E, k)`` houses, -1 where nothing burns."""
    xp = namespace(houses, locations)
    n = houses.shape[1]
    distance = xp.abs(locations[:, :, None] - xp.arange(n)) % n
    distance = xp.minimum(distance, n - distance)
    distance = xp.where(houses[:, None, :] == BURNING, distance, n)
    nearest = distance.argmin(axis=2)
    return xp.where((houses == BURNING).any(axis=1)[:, None], nearest, -1)


class BucketBrigadeAgent(ArrayDecisions, mesa.Agent):
    """An agent in a seat: owns houses ``h`` with ``h mod num_agents == seat``. Its state is
    its seat's entries of the model's episode (``model.episode``); setting one by hand sets
    the episode's. Each built-in behaviour is written once, over arrays (``batch_decide``):
    the batch engine plays it on its episodes, and its ``choose_signal`` and
    ``choose_action`` come from it on the model's one (``dilemmas.agents.decisions``)."""

    behaviour: ClassVar[str] = ""
    #: The methods in which a behaviour decides (the model's signal and act phases).
    decisions: ClassVar[tuple[str, ...]] = ("choose_signal", "choose_action")

    def __init__(self, model, seat: int):
        super().__init__(model)
        self.seat = seat
        self.owned = tuple(range(seat, model.num_houses, model.num_agents))
        self.work_cost = model.work_costs[seat]

    @property
    def house(self) -> int:
        """The house the agent is at (its first house before night 1)."""
        return int(self.model.locations[0, self.seat])

    @house.setter
    def house(self, house):
        self.model.locations = _set(self.model.locations, self, house)

    @property
    def signal(self) -> str | None:
        """Its signal of the night, WORK or REST (None before the first signals)."""
        return None if _before(self.model, "signal") else _word(self.model.signalled, self)

    @signal.setter
    def signal(self, signal):
        self.model.signalled = _set(self.model.signalled, self, signal == WORK)

    @property
    def mode(self) -> str | None:
        """Its mode of the night, WORK or REST (None before the first actions)."""
        return None if _before(self.model, "act") else _word(self.model.working, self)

    @mode.setter
    def mode(self, mode):
        self.model.working = _set(self.model.working, self, mode == WORK)

    @property
    def lied(self) -> bool:
        """Whether its mode of the night differs from its signal."""
        return bool(self.model.lied[0, self.seat])

    @lied.setter
    def lied(self, lied):
        self.model.lied = _set(self.model.lied, self, lied)

    @property
    def reward(self) -> float:
        """Cumulative reward (the model's ``tally``)."""
        return self.model.tally.rewards[0, self.seat].item()

    def choose_signal(self) -> str:
        """WORK or REST, from ``model.observation`` (tonight's signals not yet known)."""
        raise NotImplementedError

    def choose_action(self) -> tuple[int, str]:
        """``(house, mode)``, from ``model.observation`` including tonight's signals."""
        raise NotImplementedError


def _before(model, phase: str) -> bool:
    """Whether the first night's ``phase`` has not been played yet."""
    night = model.night
    return night == 0 or night == 1 and model._opened and phase not in model.phases_run


def _word(flags, agent) -> str:
    return WORK if flags[0, agent.seat] else REST


def _set(values, agent, value):
    """A copy of the episode's ``values`` ``(1, seats)`` with ``agent``'s entry ``value`` (the
    rules never change an array in place)."""
    values = values.copy()
    values[0, agent.seat] = value
    return values


class RandomAgent(BucketBrigadeAgent):
    """Signal, house and mode each uniform and independent."""

    behaviour = "random"

    @staticmethod
    def batch_decide(batch, group, phase):
        """A signal WORK with probability 1/2; a house ``int(u * num_houses)`` and a mode
        WORK with probability 1/2, from two numbers a seat."""
        shape = (batch.size, len(group.seats))
        if phase == "signal":
            return batch.draw(shape) < 0.5
        draws = batch.draw((*shape, 2))
        return (draws[..., 0] * batch.model.num_houses).astype(int), draws[..., 1] < 0.5


class AlwaysWorkAgent(BucketBrigadeAgent):
    """Honest: works at the fire nearest its location (ties to the lower index) and
    signals WORK; when nothing burns it signals REST and rests where it stands."""

    behaviour = "always_work"

    @staticmethod
    def batch_decide(batch, group, phase):
        """WORK where something burns, at the fire nearest (``nearest_fires``)."""
        fire = (batch.houses == BURNING).any(axis=1)
        if phase == "signal":
            return batch.xp.broadcast_to(fire[:, None], (batch.size, len(group.seats)))
        here = batch.locations[:, group.seats]
        target = nearest_fires(batch.houses, here)
        return batch.xp.where(target < 0, here, target), target >= 0


class AlwaysRestAgent(BucketBrigadeAgent):
    """Honest: signals REST and rests where it stands."""

    behaviour = "always_rest"

    @staticmethod
    def batch_decide(batch, group, phase):
        """REST, where it stands."""
        rest = batch.xp.zeros((batch.size, len(group.seats)), dtype=bool)
        return rest if phase == "signal" else (batch.locations[:, group.seats], rest)


HEURISTIC_PARAMETERS = ("honesty", "work_tendency", "neighbor_help", "own_house_priority",
                        "risk_aversion", "coordination", "exploration", "fatigue",
                        "rest_bias", "altruism")


class HeuristicAgent(BucketBrigadeAgent):
    """The ten-parameter heuristic of the module docstring; subclasses set ``params``."""

    params: ClassVar[dict[str, float]] = {}

    _intent = seat_memory("intent", "The intent of this night's signal phase, WORK True.")

    @property
    def intent(self) -> str:
        """Its intent of the night's signal phase, WORK or REST (kept for its act phase);
        setting it sets the intent its next ``choose_action`` acts on."""
        return WORK if self._intent else REST

    @intent.setter
    def intent(self, intent):
        self._intent = intent == WORK

    @classmethod
    def batch_decide(cls, batch, group, phase):
        """The heuristic of the module docstring for the group's seats in every episode.

        Random numbers, one fixed array per phase from ``batch.draw`` (``E`` episodes, ``k``
        seats of the group):

        * ``signal``: ``u = batch.draw((E, k, 2))``; ``u[..., 0]`` is the intent draw
          (used only in an episode where something burns) and ``u[..., 1]`` the honesty
          draw.
        * ``act``: ``u = batch.draw((E, k, 3))``, used only where something burns;
          ``u[..., 0]`` is the exploration draw, ``u[..., 1]`` chooses the fire when exploring
          (the ``int(u * number of fires)``-th burning house in index order: uniform),
          ``u[..., 2]`` the draw of the mode flip (against ``rest_bias*cover`` for an intent
          to WORK, ``altruism*(1 - cover)`` for an intent to REST).

        The intent chosen in the ``signal`` phase is kept in ``group.memory["intent"]``
        (``(E, k)``, WORK True) for the ``act`` phase (``intent``, a seat's entry). The
        ``exp`` of the helper counts goes through ``math.exp``.
        """
        p, xp = cls.params, batch.xp
        seats = group.seats
        size, k = batch.size, len(seats)
        houses = batch.houses
        n = houses.shape[1]
        burning = houses == BURNING  # (E, n)
        fire = burning.any(axis=1)  # (E,)
        owned = batch.model.owns[seats]  # (k, n)
        if phase == "signal":
            u = batch.draw((size, k, 2))
            w0 = p["work_tendency"]
            w = xp.where((burning[:, None, :] & owned).any(axis=2),
                         w0 + (1 - w0) * p["own_house_priority"], w0)
            w = xp.where(batch.last_work[:, seats], w * (1 - p["fatigue"]), w)
            intent = fire[:, None] & (u[..., 0] < w)
            group.memory["intent"] = intent
            return xp.where(u[..., 1] < p["honesty"], intent, ~intent)

        u = batch.draw((size, k, 3))
        intent = group.memory["intent"]
        here = batch.locations[:, seats]
        num_agents = batch.locations.shape[1]
        decay = _decay(batch.model.kappa, num_agents)
        # Helpers: the WORK signallers expected at each fire, less the agent itself.
        expected = nearest_fires(houses, batch.locations)  # (E, N), -1 without fire
        signalled = batch.signals & (expected >= 0)
        heading = signalled[:, :, None] & (expected[:, :, None] == xp.arange(n))  # (E, N, n)
        helpers = heading.sum(axis=1)[:, None, :] - heading[:, seats]  # (E, k, n)
        # Score of every house (only fires count).
        distance = xp.abs(here[:, :, None] - xp.arange(n)) % n
        distance = xp.minimum(distance, n - distance)
        score = (_placed(tuple(p[name] for name in HEURISTIC_PARAMETERS), n, num_agents, tuple(seats.tolist()))
                 + p["coordination"] * xp.asarray(decay)[helpers]
                 - p["risk_aversion"] * distance / (n // 2))
        best = xp.where(burning[:, None, :], score, -xp.inf).argmax(axis=2)
        # Exploration: the int(u * fires)-th fire in index order.
        count = burning.sum(axis=1)  # (E,)
        pick = (u[..., 1] * count[:, None]).astype(int)  # (E, k)
        rank = xp.cumsum(burning, axis=1) - 1  # (E, n): index of each fire among the fires
        explored = (burning[:, None, :] & (rank[:, None, :] == pick[:, :, None])).argmax(axis=2)
        target = xp.where(u[..., 0] < p["exploration"], explored, best)
        # Mode: the intent, flipped against the cover the signals give the target.
        cover = 1 - xp.asarray(decay)[xp.take_along_axis(helpers, target[:, :, None],
                                                         axis=2)[..., 0]]
        working = xp.where(intent, ~(u[..., 2] < p["rest_bias"] * cover),
                           u[..., 2] < p["altruism"] * (1 - cover))
        working = working & fire[:, None]
        return xp.where(working, target, here), working

    @staticmethod
    def batch_memory(batch, group):
        """The intent of the signal phase, for the act phase (none yet)."""
        return {"intent": batch.xp.zeros((batch.size, len(group.seats)), dtype=bool)}


@functools.cache
def _decay(kappa: float, agents: int) -> np.ndarray:
    """``exp(-kappa*m)`` for m = 0 .. ``agents`` helpers, as ``math.exp`` computes it."""
    return np.array([math.exp(-kappa * m) for m in range(agents + 1)])


@functools.cache
def _placed(params: tuple, n: int, agents: int, seats: tuple) -> np.ndarray:
    """The terms of the heuristic's score that depend only on where a house lies (``(k,
    n)``, for the seats ``seats``): ``own_house_priority*[own] + neighbor_help*[next to an
    own house, not own] + altruism*[not own]``, added in that order."""
    values = dict(zip(HEURISTIC_PARAMETERS, params))  # in HEURISTIC_PARAMETERS order
    owned = np.arange(n) % agents == np.array(seats)[:, None]
    next_to_own = ~owned & (np.roll(owned, 1, axis=1) | np.roll(owned, -1, axis=1))
    return (values["own_house_priority"] * owned.astype(float)
            + values["neighbor_help"] * next_to_own.astype(float)
            + values["altruism"] * (~owned).astype(float))


def _archetype(name, summary, **params):
    assert set(params) == set(HEURISTIC_PARAMETERS), name
    class_name = "".join(part.title() for part in name.split("_")) + "Agent"
    return type(class_name, (HeuristicAgent,), {
        "behaviour": name, "params": params, "__module__": __name__,
        "__doc__": f"{summary} The {name} archetype of the ten-parameter heuristic, with "
                   f"{params}."})


#: The five archetypes (docs/rules/bucket_brigade.md, "Behaviours").
FirefighterAgent = _archetype(
    "firefighter", "Always honest; works on most nights with a fire; never free-rides.",
    honesty=1.0, work_tendency=0.9, neighbor_help=0.5, own_house_priority=0.8,
    risk_aversion=0.5, coordination=0.7, exploration=0.1, fatigue=0.0, rest_bias=0.0, altruism=0.8)
LiarAgent = _archetype(
    "liar", "Signals the opposite of its intent nine times in ten.",
    honesty=0.1, work_tendency=0.7, neighbor_help=0.0, own_house_priority=0.9,
    risk_aversion=0.2, coordination=0.8, exploration=0.3, fatigue=0.0, rest_bias=0.4, altruism=0.2)
FreeRiderAgent = _archetype(
    "free_rider", "Works mostly for its own houses, and often rests when others signal work.",
    honesty=0.7, work_tendency=0.2, neighbor_help=0.0, own_house_priority=0.9,
    risk_aversion=0.0, coordination=0.0, exploration=0.1, fatigue=0.0, rest_bias=0.9, altruism=0.0)
HeroAgent = _archetype(
    "hero", "Works whenever something burns, except after a night of work.",
    honesty=1.0, work_tendency=1.0, neighbor_help=1.0, own_house_priority=0.5,
    risk_aversion=0.1, coordination=0.5, exploration=0.0, fatigue=0.9, rest_bias=0.0, altruism=1.0)
CoordinatorAgent = _archetype(
    "coordinator", "Goes where the signals leave the most work; prefers near fires.",
    honesty=0.9, work_tendency=0.6, neighbor_help=0.7, own_house_priority=0.6,
    risk_aversion=0.8, coordination=1.0, exploration=0.05, fatigue=0.0, rest_bias=0.2, altruism=0.6)


PolicyAgent, QLearningAgent, LinearQAgent = policy_behaviours(BucketBrigadeAgent, __name__)


#: Behaviour names for ``population``.
BEHAVIOURS = {cls.behaviour: cls for cls in (
    RandomAgent, AlwaysWorkAgent, AlwaysRestAgent,
    FirefighterAgent, LiarAgent, FreeRiderAgent, HeroAgent, CoordinatorAgent, PolicyAgent,
    QLearningAgent, LinearQAgent)}
