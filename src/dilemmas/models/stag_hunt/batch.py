"""Stag Hunt's batch engine: thousands of episodes of one parameter set at once, with the
rules the Mesa model plays (``dilemmas.models.stag_hunt.arrays``).

The phases of the rules' "Round": turn, removals (returns), transitions, act (the agents
one after another in an order drawn afresh each turn, each behaviour choosing for the seat
acting now, ``batch.acting``, as in State Punishment's engine), metrics. A behaviour's
``batch_decide(batch, group, "act")`` can read ``batch.current`` (the ``arrays.State``),
``batch.rules`` (``arrays.rules_of``), ``batch.t``, ``batch.model``, ``batch.xp`` and
``batch.draw``. Agent rows exist only for the seats spawned, as in the model. Random maps
with interior walls are refused (``refusal``): their walls are drawn on the host, one map per
episode, which the compiled program does not do.
"""

import numpy as np

from dilemmas.models.batch import InTurnEngine
from dilemmas.models.stag_hunt import arrays


class StagHuntBatch(InTurnEngine):
    game = "stag_hunt"
    state = (*arrays.State._fields, "order", "playing")
    decisions = ("act",)
    seat_columns = ("behaviour", "kind")

    def __init__(self, episodes, rng, **options):
        super().__init__(episodes, rng, **options)
        self.rules = arrays.rules_of(self.model)

    @classmethod
    def refusal(cls, model):
        if model.ascii_map is None and model.wall_density > 0:
            return (f"wall_density={model.wall_density!r}: random maps with interior walls "
                    "are not drawn on arrays yet")
        return None

    @property
    def current(self) -> arrays.State:
        return arrays.State(*(getattr(self, name) for name in arrays.State._fields))

    @current.setter
    def current(self, state: arrays.State):
        for name, value in state._asdict().items():
            setattr(self, name, value)

    @property
    def rewards(self):
        return self.reward

    def setup(self):
        model, xp = self.model, self.xp
        shape = (self.size, *model.walls.shape)
        spawn = np.zeros(model.walls.shape, dtype=bool)
        for cell in (model.spawn_points if not model.random_agent_spawning else ()):
            spawn[cell] = True
        layout = _map_resources(model)
        self.current = arrays.start(
            self.rules, xp.broadcast_to(xp.asarray(model.walls), shape),
            xp.broadcast_to(xp.asarray(layout), shape), xp.broadcast_to(xp.asarray(spawn), shape),
            model.num_agents_to_spawn, model.random_agent_spawning, model.ascii_map is None,
            model.resource_density, model.stag_probability, self.draw,
            int(np.count_nonzero(~model.walls)))
        self.playing = self.present
        self.order = xp.zeros((self.size, model.num_agents), dtype=int)

    def blank(self, phase):
        return (self.xp.zeros(self.row.shape, dtype=int),)

    def begin_round(self):
        """turn, removals, transitions; the order of the act phase is drawn."""
        super().begin_round()
        state, k = arrays.begin_turn(self.current), self.row.shape[1]
        state = arrays.returns(state, self.rules, self.t, self.draw(self.row.shape),
                               self.draw(self.row.shape))
        self.current = arrays.transitions(state, self.rules, self.t,
                                          self.draw(self.queue_order.shape))
        # the seats spawned in a uniformly random order, then the others (who never act)
        self.order = self.xp.argsort(self.draw((self.size, k)) + ~self.playing, axis=1)

    def places(self) -> int:
        """The spawned seats' (the others never act)."""
        return self.model.num_agents_to_spawn

    def act(self, action):
        """The acting seat's action (``arrays.act``; an agent off the grid does not act)."""
        return arrays.act(self.current, self.rules, self.t, self.acting, action)[0]

    def resolve(self):
        """metrics; the episodes that end (after ``max_steps`` turns)."""
        return self.xp.zeros(self.size, dtype=bool) | (self.t >= self.model.max_steps)

    def model_row(self) -> dict:
        return arrays.reporters(self.t, self.current, self.playing)

    def agent_row(self) -> dict:
        """The spawned seats' rows (an agent not spawned has none, as in the model)."""
        return {"health": self.agent_health, "reward": self.reward, "stags": self.stags,
                "hares": self.hares, "removed": self.removed, "seated": self.playing}

    def load(self, model, state):
        """Turn ``t``'s ``arrays.State`` as ``StagHuntModel`` holds it (one episode): the
        seats spawned this episode are the model's agents (the others removed, as the model
        removes them), the grid and agents show the state (``model._show``), and its
        reporters."""
        model.turn = state["t"]
        model.state = arrays.State(*(state[name][None] for name in arrays.State._fields))
        model.playing = state["playing"][None]
        for agent in model.seats:
            if state["playing"][agent.seat] and agent not in model.agents:
                number = agent.unique_id
                model.register_agent(agent)  # Mesa numbers it anew: it keeps its seat's
                agent.unique_id = number
            elif not state["playing"][agent.seat] and agent in model.agents:
                agent.cell = None
                agent.remove()
        model._show()
        model._report()


def _map_resources(model) -> np.ndarray:
    """The map's own resources (3: one of random kind), none on a random map."""
    from dilemmas.models.stag_hunt.maps import read_ascii_map

    if model.ascii_map is None:
        return np.zeros(model.walls.shape, dtype=int)
    return read_ascii_map(model.ascii_map).resources.astype(int)
