"""Firefighting Graph behaviours, the names ``population`` accepts
(docs/rules/firefighting_graph.md, "Behaviours").

A firefighter chooses an action each step: the index of one of the houses it guards (row:
0 = house i, 1 = house i + 1; grid: 0..3 = the corners of its cell). It observes only the
flames (1) or not (0) at the house it visited, after the transition.

``belief_tracker`` -- meets a partner at a shared house, then keeps, for each house it
guards, a probability that it burns, from its own flames and the public rules:

  1. First step: it goes to the house it shares with its partner, the next firefighter
     along its row of cells: one in an even column (row layout: an even seat) takes action 1
     (its right-hand house), one in an odd column action 0 (its left-hand house). Two
     firefighters at a house put it out with p_two_agents, and a house with a firefighter
     never grows.
  2. Beliefs start at max_fire_level / (max_fire_level + 1), the chance that a level drawn
     uniformly from 0..max_fire_level is above 0. After each step, Bayes' rule on the flame it
     saw updates the house it visited (P(flame | burning) = p_observe[2], P(flame | not
     burning) = p_observe[0]); each other house may have caught fire: P <- P + (1 - P) *
     p_ignite.
  3. It stays at its house while it believes it burns with probability below 1/2 (so one
     false alarm, flames at level 0, does not move it); otherwise it goes to the house it
     believes least likely to burn (ties to the lower action).

On the default row game this earns a mean cumulative reward near -25, against about -490 for
``random`` (200 seeds). It earns it by guarding what it put out: the five pairs keep five
houses at 0 and leave the six others to burn, so the town ends with about 8 times the fire of
``random`` and a shared reward about 4 times worse -- the individual reward's own dilemma.
"""

from typing import ClassVar

import mesa
import numpy as np

from dilemmas.agents.decisions import ArrayDecisions, seat_memory
from dilemmas.agents.policy import policy_behaviours


class FirefighterAgent(ArrayDecisions, mesa.Agent):
    """Firefighter in seat ``seat``; its state is its seat's entries of the model's episode
    (``model.episode``). Each built-in behaviour is written once, over arrays
    (``batch_decide``): the batch engine plays it on its episodes, and its ``choose_action``
    comes from it on the model's one (``dilemmas.agents.decisions``)."""

    behaviour: ClassVar[str] = ""
    #: The method in which a behaviour decides (the model's choose phase).
    decisions: ClassVar[tuple[str, ...]] = ("choose_action",)

    def __init__(self, model, seat: int):
        super().__init__(model)
        self.seat = seat

    @property
    def house(self):
        """The house visited this step (row-major number), None before the first step."""
        house = int(self.model.visited[self.seat])
        return None if house < 0 else house

    @property
    def observation(self):
        """1 if it saw flames at its house this step, 0 if not, None before the first step."""
        seen = int(self.model.observations[self.seat])
        return None if seen < 0 else seen

    @property
    def reward(self):
        """Cumulative reward."""
        return float(self.model.rewards[self.seat])

    def choose_action(self) -> int:
        raise NotImplementedError


class RandomAgent(FirefighterAgent):
    """Uniform over its actions."""

    behaviour = "random"

    @staticmethod
    def batch_decide(batch, group, phase):
        """One uniform number per seat (``dilemmas.models.firefighting_graph.batch``)."""
        draws = batch.draw((batch.size, len(group.seats)))
        return (draws * batch.model.n_actions).astype(int)


class Fixed0Agent(FirefighterAgent):
    """Always action 0."""

    behaviour = "fixed0"

    @staticmethod
    def batch_decide(batch, group, phase):
        return batch.xp.zeros((batch.size, len(group.seats)), dtype=int)


class Fixed1Agent(FirefighterAgent):
    """Always action 1."""

    behaviour = "fixed1"

    @staticmethod
    def batch_decide(batch, group, phase):
        return batch.xp.ones((batch.size, len(group.seats)), dtype=int)


class BeliefTrackerAgent(FirefighterAgent):
    """Bayesian belief per guarded house from its own flames (docs/rules/firefighting_graph.md)."""

    behaviour = "belief_tracker"

    beliefs = seat_memory("beliefs", "for each action, the probability it believes that "
                          "house burns")
    last_action = seat_memory("last", "its last action (before the first step: its first)")

    @staticmethod
    def batch_memory(batch, group):
        """The beliefs ``(episodes, seats, actions)`` at the prior, and the first action
        (the shared house: 1 in an even column, else 0)."""
        model, xp = batch.model, batch.xp
        prior = model.max_fire_level / (model.max_fire_level + 1)
        columns = group.seats if model.layout == "row" else group.seats % model.n_width
        return {"beliefs": xp.full((batch.size, len(group.seats), model.n_actions), prior),
                "last": xp.broadcast_to(xp.asarray(np.where(columns % 2 == 0, 1, 0)),
                                        (batch.size, len(group.seats)))}

    @staticmethod
    def batch_decide(batch, group, phase):
        """The module docstring's rules 1-3 for every episode of a batch: the beliefs and last
        actions live in ``group.memory`` (``batch_memory``). On the first step, the first
        action."""
        model, memory, xp = batch.model, group.memory, batch.xp
        beliefs, last = memory["beliefs"], memory["last"]
        flame = batch.observations[:, group.seats] == 1
        p_fire, p_calm = model.p_observe[2], model.p_observe[0]
        burning = xp.where(flame, p_fire, 1 - p_fire)
        calm = xp.where(flame, p_calm, 1 - p_calm)
        visited = xp.arange(model.n_actions) == last[..., None]
        total = beliefs * burning[..., None] + (1 - beliefs) * calm[..., None]
        seen = xp.where(total != 0, beliefs * burning[..., None] / xp.where(total != 0, total, 1),
                        beliefs)
        updated = xp.where(visited, seen, beliefs + (1 - beliefs) * model.p_ignite)
        alarmed = xp.take_along_axis(updated, last[..., None], 2)[..., 0] >= 0.5
        first = batch.t == 1
        memory["beliefs"] = xp.where(first, beliefs, updated)
        memory["last"] = xp.where(first | ~alarmed, last, updated.argmin(axis=2))
        return memory["last"]


PolicyAgent, QLearningAgent, LinearQAgent = policy_behaviours(FirefighterAgent, __name__)


#: Behaviour names for ``population``.
BEHAVIOURS = {cls.behaviour: cls for cls in (
    RandomAgent, Fixed0Agent, Fixed1Agent, BeliefTrackerAgent, PolicyAgent, QLearningAgent,
    LinearQAgent)}
