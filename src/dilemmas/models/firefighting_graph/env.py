"""The Firefighting Graph for learning agents (docs/rules/firefighting_graph.md, "Learning
agents").

An agent's action is the house it visits (0..1 on the row, 0..3 on the grid: its guarded
houses in the rules' order). Its observation is what the Dec-POMDP gives it -- the flames it
saw at the house it visited last step -- together with what it knows without help: its own
last action and which firefighter it is. The vector: none yet / no flames / flames one-hot
(3), its last action one-hot (2 or 4; zeros before the first step), its seat one-hot
(``n_agents``), so that one shared policy can tell the firefighters apart. Longer memory is
the learner's. The
tabular features (``q_learning``) are the seat, the flames seen (0 none yet, 1 no flames, 2
flames) and the last action (``n_actions`` before the first step). The state is every
house's level divided by ``max_fire_level``. The rules end an episode early
when every house is at level 0 (termination); ``max_steps`` truncates it.

The vectors are built once, over arrays of ``E`` episodes (``vectors``): the interface of the
Mesa model passes its one episode (``E = 1``), ``batch_observe`` the arrays of a batch
engine's episodes (``dilemmas.models.firefighting_graph.batch``) for the vectorised environment
(``dilemmas.envs.vector``).
"""

import numpy as np

from dilemmas.models.firefighting_graph import arrays

from dilemmas.models.interface import Interface
from dilemmas.models.xp import namespace


def vectors(model, seats, flames, visited):
    """``(E, len(seats), L)`` float32: the observation vectors of ``seats`` in ``E`` episodes,
    from each firefighter's flames seen (``flames``: 1, 0, or -1 before the first step) and
    house visited (``visited``: -1 before the first step), ``(E, n_agents)`` each; numpy or
    JAX arrays (``dilemmas.models.xp``)."""
    xp = namespace(flames, visited)
    seats = np.asarray(seats, dtype=np.int64)
    seen = visited[:, seats]
    flame = flames[:, seats, None] + 1 == xp.arange(3)  # -1 (none yet) lands on column 0
    last = (xp.asarray(model.guarded[seats]) == seen[..., None]) & (seen[..., None] >= 0)
    me = np.eye(model.n_agents, dtype=np.float32)[seats]
    return xp.concatenate([flame.astype(xp.float32), last.astype(xp.float32),
                           xp.broadcast_to(xp.asarray(me), (len(flames), *me.shape))], axis=-1)


class FirefightingGraphInterface(Interface):
    phases = ("choose",)

    def observation_length(self, model) -> int:
        return 3 + model.n_actions + model.n_agents

    def actions(self, model) -> int:
        return model.n_actions

    def vector(self, model, agent, phase) -> np.ndarray:
        return self.observe_all(model, [agent], phase)[0]["observation"]

    def observe_all(self, model, agents, phase) -> list[dict]:
        """The model's one episode through ``vectors`` (``E = 1``)."""
        if not agents:
            return []
        seats = np.array([agent.seat for agent in agents], dtype=np.int64)
        mask = self.all_allowed(model)
        return [{"observation": vector, "action_mask": mask} for vector in
                vectors(model, seats, model.observations[None], model.visited[None])[0]]

    def feature_names(self, model) -> tuple[str, ...]:
        return ("seat", "flames", "last_action")

    def features(self, model, agent, vector) -> tuple[int, ...]:
        actions = vector[3:3 + model.n_actions]
        last = int(np.argmax(actions)) if actions.any() else model.n_actions
        return agent.seat, int(np.argmax(vector[:3])), last

    def decode(self, model, agent, phase, action):
        return action

    def state(self, model, phase) -> np.ndarray:
        return (model.levels.ravel() / model.max_fire_level).astype(np.float32)

    def ended_by_rules(self, model) -> bool:
        return bool(arrays.ends(model.total_fire, 0, max_steps=1))  # all at 0, no cap

    # Many episodes at once, on the batch engine's arrays (dilemmas.envs.vector).
    def batch_observe(self, batch, seats, phase, memory):
        """``vectors`` of ``seats`` in every episode ``batch`` plays
        (``dilemmas.models.firefighting_graph.batch``), and the mask (every action allowed)."""
        return (vectors(batch.model, seats, batch.observations, batch.visited),
                self.all_allowed(batch.model))

    def batch_state(self, batch, phase, memory):
        """``state`` of every episode ``batch`` plays ``(E, houses)``."""
        levels = batch.levels.reshape(batch.levels.shape[0], -1)
        return (levels / batch.model.max_fire_level).astype(batch.xp.float32)

    def batch_ended_by_rules(self, batch) -> np.ndarray:
        return arrays.ends(arrays.totals(batch.levels), 0, max_steps=1)


INTERFACE = FirefightingGraphInterface()
