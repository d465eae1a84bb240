"""Stag Hunt's rules over arrays of episodes: the round written once, played by the batch
engine on thousands of episodes of one parameter set at once and by ``StagHuntModel`` on its
one (``model.episode``, ``BatchEngine.one``).

The round is the model's declaration (``StagHuntModel.phases``, the phases of the rules'
"Round"): the rule phases ``advance_turn``, ``update_removals`` and ``entity_transitions``,
each a method here over the rule functions of ``dilemmas.models.stag_hunt.arrays``; the act
phase, in which the agents act one after another in an order drawn afresh each turn
(``turn_order``), each behaviour choosing for the seat acting now, ``batch.acting``, and its
action taking effect at once (``act``; ``dilemmas.models.batch.InTurnEngine``); then
``record_metrics``. A behaviour's ``batch_decide(batch, group, "act")`` can read
``batch.current`` (the ``arrays.State``), ``batch.rules`` (``arrays.rules_of``),
``batch.t``, ``batch.model``, ``batch.xp`` and ``batch.draw``. Agent rows exist only for
the seats spawned, as in the model. Random maps with interior walls are refused
(``refusal``): their walls are drawn on the host, one map per episode, which the compiled
program does not do.
"""

import numpy as np

from dilemmas.models.batch import SEATED, InTurnEngine, gathered
from dilemmas.models.stag_hunt import arrays


class StagHuntBatch(InTurnEngine):
    game = "stag_hunt"
    state = (*arrays.State._fields, "order", "playing")
    seat_columns = ("behaviour", "kind")

    @classmethod
    def refusal(cls, model):
        if model.ascii_map is None and model.wall_density > 0:
            return (f"wall_density={model.wall_density!r}: random maps with interior walls "
                    "are not drawn on arrays yet")
        return None

    current = gathered(arrays.State)

    @property
    def rules(self) -> arrays.Rules:
        """The rules' constants (``arrays.rules_of`` the template model)."""
        return self.model.rules

    @property
    def rewards(self):
        return self.reward

    def setup(self):
        """The episodes at the start ("World"; ``arrays.start``): the template model's walls
        and spawn points, the map's own resources (none on a random map)."""
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

    def open_round(self):
        """The turn counter is the round's first rule phase (``advance_turn``)."""

    # --- Phase 1: turn counter ----------------------------------------------------------
    def advance_turn(self):
        """"Round", 1: the turn counter goes up; this turn's counts start at 0."""
        self.t = self.t + 1
        self.current = arrays.begin_turn(self.current)

    # --- Phase 2: removal and respawn timers --------------------------------------------
    def update_removals(self):
        """"Round", 2: agents whose ``respawn_lag`` has run out return with full health on a
        random free open cell (random spawning) or a random free spawn point
        (``arrays.returns``: two numbers per seat, drawn whether or not one returns)."""
        self.current = arrays.returns(self.current, self.rules, self.t,
                                      self.draw(self.row.shape), self.draw(self.row.shape))

    # --- Phase 3: entity transitions ----------------------------------------------------
    def entity_transitions(self):
        """"Round", 3: wounded resources heal, resources due back reappear, last turn's beams
        clear (``arrays.transitions``: one number per slot of the regrowth queue)."""
        self.current = arrays.transitions(self.current, self.rules, self.t,
                                          self.draw(self.queue_order.shape))

    # --- Phase 4: the agents act one after another --------------------------------------
    def turn_order(self):
        """"Round", 4: the seats spawned in a uniformly random order (one number per seat),
        then the others (who never act)."""
        return self.xp.argsort(self.draw(self.row.shape) + ~self.playing, axis=1)

    def places(self) -> int:
        """The spawned seats' (the others never act)."""
        return self.model.num_agents_to_spawn

    def act(self, action):
        """The acting seat's action (``arrays.act``; an agent off the grid does not act); the
        resources it killed (``arrays.Kills``, or None)."""
        self.current, kills = arrays.act(self.current, self.rules, self.t, self.acting, action)
        return kills

    # --- Phase 5: metrics -----------------------------------------------------------------
    def record_metrics(self):
        """"Round", 5: the episodes that end (after ``max_steps`` turns)."""
        return self.xp.zeros(self.size, dtype=bool) | (self.t >= self.model.max_steps)

    def model_row(self) -> dict:
        return arrays.reporters(self.t, self.current, self.playing)

    def agent_row(self) -> dict:
        """The spawned seats' rows (an agent not spawned has none, as in the model)."""
        return {"health": self.agent_health, "reward": self.reward, "stags": self.stags,
                "hares": self.hares, "removed": self.removed, SEATED: self.playing}

    def shown(self, model, state):
        """After ``load``: the seats spawned in this episode are the model's agents (the
        others removed, as the model removes them); then the grid and agents show the state
        and the model reports the turn."""
        for agent in model.seats:
            if state["playing"][agent.seat] and agent not in model.agents:
                number = agent.unique_id
                model.register_agent(agent)  # Mesa numbers it anew: it keeps its seat's
                agent.unique_id = number
            elif not state["playing"][agent.seat] and agent in model.agents:
                agent.remove()
        super().shown(model, state)


def _map_resources(model) -> np.ndarray:
    """The map's own resources (3: one of random kind), none on a random map."""
    from dilemmas.models.stag_hunt.maps import read_ascii_map

    if model.ascii_map is None:
        return np.zeros(model.walls.shape, dtype=int)
    return read_ascii_map(model.ascii_map).resources.astype(int)
