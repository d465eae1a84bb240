"""Stag Hunt Physical: a gridworld hunt of stags and hares with attack and punish beams.

The rules are docs/rules/stag_hunt.md. One ``step()`` is one turn, run as the five phases of
its "Round" (see ``StagHuntModel.phases``), each played by the game's batch engine's methods
(``dilemmas.models.stag_hunt.batch``) on the model's one episode (``model.episode``), which
the Mesa grid and agents show (docs/rules/stag_hunt.md, "Random numbers and arrays").

Choices the sources leave open, made here (also in the rules' last section):

* The world is a Mesa ``OrthogonalVonNeumannGrid`` of ``(height, width)`` cells addressed
  ``(row, col)``, row 0 at the top (North). Property layers: ``wall`` (bool), ``resource``
  (0 none, 1 stag, 2 hare), ``health`` (the resource's), ``attack_beam`` and ``punish_beam``
  (bool, the cells the beams of this turn covered). Agents are ``CellAgent`` instances.
* The state lives in one place: the model's episode on the game's batch engine
  (``model.episode``, one episode), whose methods are the round's rule phases
  (``RulePhase``) and its act (the same code plays the batch engine's thousands of
  episodes). The layers are the episode's arrays themselves (``show`` points the episode
  at them after each phase), so a value set there by hand counts; a resource put on the
  map by hand gets its number for the regrowth queue when the next turn opens or the next
  action is taken. An agent's cell is a view of its seat's place: moving an agent by hand
  (``agent.cell = model.grid[(row, col)]``) moves it in the episode. ``turn``, ``state``,
  ``playing`` and the agents' counters (``health``, ``reward``, ...) read the episode, and
  setting them sets it.
* Maps (``dilemmas.models.stag_hunt.maps``): with ``ascii_map`` the map's size is the world's and
  ``height``/``width``/``wall_density``/``resource_density`` are validated but not used. Random maps
  place the agents first (their starting cells count as spawn points), then a resource on
  each other open cell with ``resource_density``. Fixed spawning without a map uses the
  first ``num_agents`` open cells in row-major order as spawn points; the spawned agents, in
  seat order, start on the spawn points in row-major order.
* ``agent_config`` is None (the original game's configuration, repeated: seat ``i`` is kind ``"B"``
  without ``can_hunt`` when ``i % 3 == 2``, else kind ``"A"`` with it) or one mapping per
  agent with any of ``kind`` (a non-empty string; default ``"A"``), ``can_hunt`` (True),
  ``can_receive_shared_reward`` (True), ``exclusive_reward`` (False).
* The agents not spawned this episode stay in ``model.seats`` (seat order, every configured
  agent) but are removed from the model at once: they are not in ``model.agents``, never act,
  never appear on the grid or in the DataCollector's agent rows, and are never paid.
* Timers count whole turns missed: a resource with regeneration cooldown ``n`` defeated in
  turn ``t``, or an agent removed in turn ``t`` with ``respawn_lag`` ``n``, is back at the
  start of turn ``t + n + 1`` (phase 3, phase 2) -- as an action with cooldown ``n`` used in
  turn ``t`` is usable again from turn ``t + n + 1``. When no cell is free for it, it waits
  for the next turn. A returning agent faces a new uniformly drawn direction.
* Healing (phase 3) applies to every resource hit but not killed, hares with more than one
  health as well as stags: at the start of turn ``T`` it regains full health when
  ``T - (turn of its last hit) >= heal_delay`` (``heal_delay`` 0: never).
* Footprints, in the agent's frame (``d`` tiles ahead, ``l`` tiles to the right):
  ``"area"`` is ``d`` in 0..2, ``l`` in -1..1, cell by cell (a wall hides nothing behind
  it); ``"single"`` is ``l = 0``, ``d`` = 1..``attack_range``; ``"beam"`` is ``d`` = 1..
  ``beam_length`` with ``|l| <= min(d - 1, beam_radius)``, each column ``l`` a ray from
  ``d = 1`` that stops at its first wall (or the map's edge). The punish beam is ``l = 0``,
  ``d`` = 1..``beam_length``, stopped the same way. ``attack_mode`` given explicitly wins
  over the original game's flags ``area_attack`` and ``single_tile_attack``.
* A resource is hit once per attack; an agent's own cell is in its area footprint but never
  holds a resource. A defeat pays ``reward / k`` to each of the ``k`` recipients: the
  defeater (paid at once) and the other agents on the grid within Chebyshev distance
  ``reward_sharing_radius`` of the resource with ``can_receive_shared_reward`` (paid as
  pending reward at the start of their next action -- before its effects, whatever the
  action). ``model.defeats`` records every defeat and its recipients.
* The fourth extra feature is 1 during turn ``t`` when a share of another agent's defeat
  was given to the agent during turn ``t - 1``.
* ``vision_radius`` has no upper bound: beyond the map the window reads walls.
* The observation's positional encoding is one-hot over an ``embedding_size`` x
  ``embedding_size`` partition of the world: cell ``(r, c)`` is in part
  ``(r * n // height, c * n // width)``.
* Costs are numbers >= 0 subtracted from the reward; rewards may be any finite number.
* ``collect_data=False`` is for speed: no DataCollector.
"""

import copy
from pathlib import Path

import numpy as np

from dilemmas.models import validation as check
from dilemmas.models.gridworld import walled_grid
from dilemmas.models.phases import AgentPhase, Live, PhasedModel, RulePhase, episode_value
from dilemmas.models.stag_hunt import arrays
from dilemmas.models.stag_hunt.batch import StagHuntBatch
from dilemmas.models.stag_hunt.maps import random_layout, read_ascii_map
from dilemmas.models.stag_hunt.rules import (ACTIONS, AGENT_REPORTERS, KIND_CHANNEL,
                                             MODEL_REPORTERS, PARAMETERS, RESOURCE_NAMES, Defeat,
                                             Observation)


class StagHuntModel(PhasedModel):
    """Hunters on a walled grid: hares alone, stags together, and beams to punish."""

    model_reporters = MODEL_REPORTERS
    array_reporters = staticmethod(arrays.reporters)
    # Read as they stand, mid-turn too; stag_share and mean_reward are the metrics phase's.
    stags_defeated, hares_defeated, coordinated_stag_kills = Live(), Live(), Live()
    attacks, punishments, punish_hits = Live(), Live(), Live()
    removals, agents_removed, stags_on_map, hares_on_map = Live(), Live(), Live(), Live()
    agent_reporters = AGENT_REPORTERS
    parameters = PARAMETERS

    # A RulePhase's method here is made by PhasedModel (phases.RulePhase.played_on): its
    # code is the engine's method of that name, StagHuntBatch in models/stag_hunt/batch.py.
    phases = (
        RulePhase("turn", method="advance_turn"),
        RulePhase("removals", method="update_removals"),
        RulePhase("transitions", method="entity_transitions"),
        AgentPhase("act", "choose_action", order="in turn", agents="seats"),
        RulePhase("metrics", method="record_metrics", ends=True),
    )

    def __init__(self, *, collect_data=True, rng=None, **parameters):
        super().__init__(rng=rng, collect_data=collect_data)
        p = self.set_parameters(parameters)
        behaviours = self.seat_behaviours(self.num_agents)
        if self.attack_mode is None:
            self.attack_mode = ("area" if self.area_attack else
                                "single" if self.single_tile_attack else "beam")
        if p.ascii_map is None:
            layout = random_layout(self.height, self.width, self.wall_density, self.random)
        else:
            layout = read_ascii_map(p.ascii_map)
            self.height, self.width = layout.walls.shape
        self.ascii_map = str(p.ascii_map) if isinstance(p.ascii_map, Path) else p.ascii_map

        self.attack_reach = {"area": 2, "single": self.attack_range,
                             "beam": self.beam_length}[self.attack_mode]
        self.kinds = tuple(sorted({config["kind"] for config in self.agent_config}))
        self.channels = KIND_CHANNEL + len(self.kinds) + 2
        self.observation_size = ((2 * self.vision_radius + 1) ** 2 * self.channels + 4
                                 + self.embedding_size ** 2)

        self.grid = walled_grid(self.height, self.width, self.random)
        self.walls = self.grid.wall.data
        self.walls[:] = layout.walls
        self.resource_kinds = self.grid.create_property_layer(
            "resource", default_value=0, dtype=np.int64).data
        self.resource_health = self.grid.create_property_layer(
            "health", default_value=0, dtype=np.int64).data
        self.attack_beam = self.grid.create_property_layer(
            "attack_beam", default_value=False, dtype=bool).data
        self.punish_beam = self.grid.create_property_layer(
            "punish_beam", default_value=False, dtype=bool).data
        #: State field -> the layer that is its array.
        self._layers = {"walls": self.walls, "resource": self.resource_kinds,
                        "health": self.resource_health, "attack_beam": self.attack_beam,
                        "punish_beam": self.punish_beam}

        self.seats = tuple(cls(self, seat, **config) for seat, (cls, config)
                           in enumerate(zip(behaviours, self.agent_config)))
        self.spawn_points = self._spawn_points(layout)
        self.derive()
        self.episode = StagHuntBatch.one(self)
        self.episode.setup()
        self.episode.start_memory()
        for agent in self.seats:
            if not self.playing[0, agent.seat]:
                agent.remove()
        self.show()

        self.defeats: list[Defeat] = []
        self._report()

        self.start_data_collection()

    def derive(self):
        """The ``Rules`` the turn uses (``arrays.rules_of``), from the parameters: made again
        when one that may change between turns changes (the beams' costs and the prey's
        rewards)."""
        self.rules = arrays.rules_of(self)

    # --- Set-up ---------------------------------------------------------------------
    def _spawn_points(self, layout) -> tuple[tuple[int, int], ...]:
        """The spawn points (none with random spawning: every free open cell is one), after
        checking that the spawned agents fit."""
        open_free = list(map(tuple, np.argwhere(~layout.walls & (layout.resources == 0))
                             .tolist()))
        if self.random_agent_spawning:
            if len(open_free) < self.num_agents_to_spawn:
                source = "ascii_map" if self.ascii_map is not None else \
                    f"height={self.height}, width={self.width}, wall_density={self.wall_density}"
                raise ValueError(
                    f"the map ({source}) has {len(open_free)} free open cells, too few for "
                    f"num_agents_to_spawn={self.num_agents_to_spawn}")
            return ()
        points = (layout.spawn_points if self.ascii_map is not None
                  else tuple(open_free[:self.num_agents]))
        if len(points) < self.num_agents_to_spawn:
            raise ValueError(
                f"random_agent_spawning=False needs a spawn point per spawned agent: the "
                f"map has {len(points)}, num_agents_to_spawn={self.num_agents_to_spawn}")
        return points

    # --- The state: the one episode's arrays -----------------------------------------
    turn = episode_value("t", "Turns begun (the turn being played, during one).", row=False)
    playing = episode_value("playing", "The seats spawned this episode, ``(1, seats)``.",
                            row=False)
    state = property(lambda self: self.episode.current,
                     lambda self, state: setattr(self.episode, "current", state),
                     doc="The episode's ``arrays.State`` (one episode); setting it sets "
                         "every array of the episode's.")

    @property
    def action_order(self) -> list[int]:
        """The seats that have acted this turn, in the turn's order."""
        acted, turn = self.episode.acted[0], self.turn
        return [seat for seat in dict.fromkeys(self.episode.order[0].tolist())
                if acted[seat] == turn]

    def show(self):
        """The layers show the episode's arrays, which then are the layers' own; each agent
        stands on its seat's cell (or off the grid). A resource put on the map by hand is
        numbered (``_number_by_hand``) before the next phase changes it."""
        episode = self.episode
        for field, layer in self._layers.items():
            value = getattr(episode, field)
            if value.base is not layer:
                layer[:] = value[0]
                setattr(episode, field, layer[None])
        self._resources_shown = self.resource_kinds.copy()
        for agent, present, row, col in zip(self.seats, episode.present[0].tolist(),
                                            episode.row[0].tolist(), episode.col[0].tolist()):
            if not present:
                if agent.cell is not None:
                    agent.cell = None
            elif agent.cell is None or agent.cell.coordinate != (row, col):
                agent.cell = self.grid[(row, col)]

    def _number_by_hand(self):
        """Resources put on the ``resource`` layer by hand since it last showed the episode
        take numbers of the regrowth queue (``_numbered``)."""
        if not np.array_equal(self.resource_kinds, self._resources_shown):
            self.episode.ident = _numbered(self.episode, self.resource_kinds[None])
            self._resources_shown = self.resource_kinds.copy()

    def end_of_round(self):
        """The model reporters of the turn."""
        self._report()

    # --- Phases 1-3: turn, removals, transitions ------------------------------------------
    # The rule phases (``RulePhase``) are the episode's methods (``StagHuntBatch.advance_turn``,
    # ``update_removals``, ``entity_transitions``); each ends with ``show``.
    def advance_turn(self):
        """The rule phase "turn" on the episode (``StagHuntBatch.advance_turn``), a resource
        put on the map by hand numbered first, then ``show``."""
        self._number_by_hand()
        self.episode.advance_turn()
        self.show()

    # --- Phase 4: the agents act one after another (``PhasedModel.in_turn``) ------------
    def can_act(self, agent) -> bool:
        """An agent removed earlier this turn no longer acts ("Round", 4)."""
        return agent.cell is not None

    def array_view(self, agent, method: str):
        """The episode as the batch engine shows it to a behaviour's ``batch_decide`` when
        ``agent`` is at its place (``acting``; ``dilemmas.agents.decisions``)."""
        view = copy.copy(self.episode)
        view.acting = np.array([agent.seat])
        return view, "act"

    @staticmethod
    def array_decisions(method: str, decided) -> list[int]:
        """The acting seat's action of ``batch_decide`` (one episode)."""
        return [int(decided[0])]

    def prepare_action(self, agent, action) -> int:
        """``agent``'s action, checked (an integer in ``0..len(ACTIONS) - 1``), with the
        episode made ready for it: a resource put on the map by hand is numbered."""
        action = check.decision(agent, action, len(ACTIONS), "action")
        self._number_by_hand()
        return action

    def take_action(self, agent, action):
        """Pay ``agent``'s pending reward, then apply its action (docs/rules/stag_hunt.md,
        "Round"; the episode's ``act``); each resource killed is recorded in ``defeats``."""
        action = self.prepare_action(agent, action)
        episode = self.episode
        episode.acting = np.array([agent.seat])
        kills = episode.act(np.array([action]))
        self.show()
        for m in np.flatnonzero(kills.killed[0]).tolist() if kills else ():
            cell = divmod(int(kills.cell[0, m]), self.width)
            seats = np.flatnonzero(kills.recipients[0, m]).tolist()
            seats.remove(agent.seat)
            self.defeats.append(Defeat(
                self.turn, RESOURCE_NAMES[int(kills.code[0, m])], cell, agent.seat,
                tuple(np.flatnonzero(kills.hitters[0, m]).tolist()), (agent.seat, *seats),
                float(kills.share[0, m])))

    def is_free(self, cell) -> bool:
        """Whether ``cell`` is on the grid, open, and holds no resource and no agent."""
        row, col = cell
        return (0 <= row < self.height and 0 <= col < self.width and not self.walls[cell]
                and not self.resource_kinds[cell] and self.grid[cell].is_empty)

    def attack_cells(self, agent) -> list[tuple[int, int]]:
        """The cells ``agent``'s attack would hit if fired now (``arrays.footprint_cells``),
        in the order of the footprint's rays."""
        row, col = agent.cell.coordinate
        rows, cols, hit = arrays.footprint_cells(
            self.walls[None], np.array([[row]]), np.array([[col]]),
            np.array([[agent.orientation]]), self.rules.attack)
        return list(zip(rows[0, 0][hit[0, 0]].tolist(), cols[0, 0][hit[0, 0]].tolist()))

    # --- Phase 5: metrics (``StagHuntBatch.record_metrics``: the episode ends after
    # ``max_steps`` turns); the DataCollector collects after the step.

    def _report(self):
        self.report(*self.reporter_inputs())

    def reporter_inputs(self) -> tuple:
        return self.turn, self.state, self.playing

    # --- Observation ------------------------------------------------------------------
    def observe(self, agent) -> Observation:
        """``agent``'s observation, built on demand (docs/rules/stag_hunt.md, "Observations";
        ``arrays.observation``)."""
        if agent.cell is None:
            raise ValueError(f"agent {agent.seat} ({agent.behaviour}) is not on the grid "
                             "(removed, or not spawned): it has no observation")
        parts = arrays.observation(self.state, self.rules, self.turn, np.array([[agent.seat]]),
                                   self.vision_radius, self.channels, self.embedding_size)
        view, features, position = (part[0, 0] for part in parts)
        return Observation(view, features, position)

    def entity_codes(self) -> np.ndarray:
        """The grid as observation channels: empty, wall, stag, hare, agent kinds
        (``arrays.codes``)."""
        state = self.state
        return arrays.codes(state.walls, state.resource, state.row, state.col,
                            self.rules.kind[None], state.present)[0]


def _numbered(state, resource) -> np.ndarray:
    """``state.ident`` for the resources ``resource`` ``(1, height, width)`` put on the map by
    hand: each keeps its number if no resource before it (row-major) or in the regrowth
    queue has it, else takes the lowest number free."""
    ident = state.ident.copy()
    taken = np.zeros(state.queue_order.shape[1], dtype=bool)
    taken[state.queue_order[0] >= 0] = True
    renumber = []
    for cell in np.flatnonzero(resource[0]).tolist():
        number = int(ident.flat[cell])
        if 0 <= number < len(taken) and not taken[number]:
            taken[number] = True
        else:
            renumber.append(cell)
    ident.flat[renumber] = np.flatnonzero(~taken)[:len(renumber)]
    return ident
