"""Stag Hunt Physical: a gridworld hunt of stags and hares with attack and punish beams.

The rules are docs/rules/stag_hunt.md. One ``step()`` is one turn, run as the five phases of
its "Round" (see ``StagHuntModel.phases``).

Choices the sources leave open, made here (also in the rules' last section):

* The world is a Mesa ``OrthogonalVonNeumannGrid`` of ``(height, width)`` cells addressed
  ``(row, col)``, row 0 at the top (North). Property layers: ``wall`` (bool), ``resource``
  (0 none, 1 stag, 2 hare), ``health`` (the resource's), ``attack_beam`` and ``punish_beam``
  (bool, the cells the beams of this turn covered). Agents are ``CellAgent`` instances.
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

from pathlib import Path

import numpy as np

from dilemmas.models import validation as check
from dilemmas.models.gridworld import one_hot, walled_grid, window
from dilemmas.models.phases import AgentPhase, ModelPhase, PhasedModel
from dilemmas.models.stag_hunt.maps import HARE, RANDOM_KIND, STAG, random_layout, read_ascii_map
from dilemmas.models.stag_hunt.rules import (_RESOURCE_CHANNEL, ACTIONS, AGENT_REPORTERS, ATTACK,
                                             DIRECTIONS, KIND_CHANNEL, MODEL_REPORTERS, MOVE_TURNS,
                                             PARAMETERS, PUNISH, RESOURCE_NAMES, TURN_LEFT,
                                             TURN_RIGHT, WALL, Defeat, Observation, _rays)


class StagHuntModel(PhasedModel):
    """Hunters on a walled grid: hares alone, stags together, and beams to punish."""

    model_reporters = MODEL_REPORTERS
    agent_reporters = AGENT_REPORTERS
    parameters = PARAMETERS

    phases = (
        ModelPhase("turn", method="advance_turn"),
        ModelPhase("removals", method="update_removals"),
        ModelPhase("transitions", method="entity_transitions"),
        AgentPhase("act", "act", order="shuffled"),
        ModelPhase("metrics", method="record_metrics"),
    )

    def __init__(self, *, collect_data=True, rng=None, **parameters):
        super().__init__(rng=rng, collect_data=collect_data)
        p = self.check_parameters(parameters)
        self.height = p.height
        self.width = p.width
        self.wall_density = p.wall_density
        self.resource_density = p.resource_density
        self.stag_probability = p.stag_probability
        self.num_agents = p.num_agents
        self.num_agents_to_spawn = p.num_agents_to_spawn
        self.population = p.population
        self.policy = p.policy
        self.learner = p.learner
        self.agent_config = p.agent_config
        self.random_agent_spawning = p.random_agent_spawning
        self.agent_health = p.agent_health
        self.respawn_lag = p.respawn_lag
        self.simplified_movement = p.simplified_movement
        self.attack_mode = p.attack_mode
        self.area_attack = p.area_attack
        self.single_tile_attack = p.single_tile_attack
        self.attack_cooldown = p.attack_cooldown
        self.attack_cost = p.attack_cost
        self.attack_range = p.attack_range
        self.beam_cooldown = p.beam_cooldown
        self.beam_length = p.beam_length
        self.beam_radius = p.beam_radius
        self.punish_cooldown = p.punish_cooldown
        self.punish_cost = p.punish_cost
        self.stag_health = p.stag_health
        self.stag_reward = p.stag_reward
        self.stag_regeneration_cooldown = p.stag_regeneration_cooldown
        self.hare_health = p.hare_health
        self.hare_reward = p.hare_reward
        self.hare_regeneration_cooldown = p.hare_regeneration_cooldown
        self.heal_delay = p.heal_delay
        self.reward_sharing_radius = p.reward_sharing_radius
        self.vision_radius = p.vision_radius
        self.embedding_size = p.embedding_size
        self.max_steps = p.max_steps
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

        self.attack_rays = _rays(self.attack_mode, self.attack_range, self.beam_length,
                                 self.beam_radius)
        self.punish_rays = _rays("punish", 0, self.beam_length, 0)
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
            "resource", default_value=0, dtype=np.int8).data
        self.resource_health = self.grid.create_property_layer(
            "health", default_value=0, dtype=np.int16).data
        self.attack_beam = self.grid.create_property_layer(
            "attack_beam", default_value=False, dtype=bool).data
        self.punish_beam = self.grid.create_property_layer(
            "punish_beam", default_value=False, dtype=bool).data

        self.seats = tuple(cls(self, seat, **config) for seat, (cls, config)
                           in enumerate(zip(behaviours, self.agent_config)))
        spawned = sorted(self.random.sample(range(self.num_agents), self.num_agents_to_spawn))
        for agent in self.seats:
            if agent.seat not in spawned:
                agent.remove()
        self._place_agents(layout)
        self._place_resources(layout)

        self.turn = 0
        self.defeats: list[Defeat] = []
        self.action_order: list[int] = []
        self._wounded: dict[tuple[int, int], int] = {}
        self._hitters: dict[tuple[int, int], set[int]] = {}
        self._regrowing: list[tuple[int, int, tuple[int, int]]] = []  # (turn due, code, cell)
        self._beams_drawn = False
        self.stags_defeated = self.hares_defeated = self.coordinated_stag_kills = 0
        self.attacks = self.punishments = self.punish_hits = 0
        self.removals = self.agents_removed = 0
        self.stags_on_map = int(np.count_nonzero(self.resource_kinds == STAG))
        self.hares_on_map = int(np.count_nonzero(self.resource_kinds == HARE))
        self.stag_share = float("nan")
        self.mean_reward = 0.0

        self.start_data_collection()

    # --- Set-up ---------------------------------------------------------------------
    def _place_agents(self, layout):
        players = list(self.agents)
        open_free = list(map(tuple, np.argwhere(~layout.walls & (layout.resources == 0))
                             .tolist()))
        if self.random_agent_spawning:
            if len(open_free) < len(players):
                source = "ascii_map" if self.ascii_map is not None else \
                    f"height={self.height}, width={self.width}, wall_density={self.wall_density}"
                raise ValueError(
                    f"the map ({source}) has {len(open_free)} free open cells, too few for "
                    f"num_agents_to_spawn={self.num_agents_to_spawn}")
            cells = self.random.sample(open_free, len(players))
            self.spawn_points = ()
        else:
            self.spawn_points = (layout.spawn_points if self.ascii_map is not None
                                 else tuple(open_free[:self.num_agents]))
            if len(self.spawn_points) < len(players):
                raise ValueError(
                    f"random_agent_spawning=False needs a spawn point per spawned agent: the "
                    f"map has {len(self.spawn_points)}, num_agents_to_spawn="
                    f"{self.num_agents_to_spawn}")
            cells = self.spawn_points[:len(players)]
        for agent, cell in zip(players, cells):
            agent.cell = self.grid[cell]
            agent.orientation = int(self.random.random() * 4)
        self._start_cells = set(cells) | set(self.spawn_points)

    def _place_resources(self, layout):
        kinds = layout.resources.copy()
        if self.ascii_map is None:
            candidates = [cell for cell in map(tuple, np.argwhere(~layout.walls).tolist())
                          if cell not in self._start_cells]
            draws = self.rng.random(len(candidates))
            chosen = [cell for cell, u in zip(candidates, draws) if u < self.resource_density]
            for cell in chosen:
                kinds[cell] = RANDOM_KIND
        rows, cols = np.nonzero(kinds == RANDOM_KIND)
        if rows.size:
            stag = self.rng.random(rows.size) < self.stag_probability
            kinds[rows, cols] = np.where(stag, STAG, HARE)
        self.resource_kinds[:] = kinds
        self.resource_health[kinds == STAG] = self.stag_health
        self.resource_health[kinds == HARE] = self.hare_health

    # --- Phase 1: turn counter ----------------------------------------------------------
    def advance_turn(self):
        self.turn += 1
        self.attacks = self.punishments = self.punish_hits = 0
        self.action_order = []

    # --- Phase 2: removal and respawn timers --------------------------------------------
    def update_removals(self):
        """Agents whose ``respawn_lag`` has run out return with full health on a random
        free open cell (random spawning) or a random free spawn point."""
        if not self.agents_removed:
            return
        for agent in self.agents:
            if agent.removed and agent.return_turn <= self.turn:
                places = self._free_cells(self.spawn_points or None)
                if places:
                    agent.cell = self.grid[places[int(self.random.random() * len(places))]]
                    agent.orientation = int(self.random.random() * 4)
                    agent.health = self.agent_health
                    agent.removed, agent.return_turn = False, None
                    self.agents_removed -= 1

    # --- Phase 3: entity transitions ----------------------------------------------------
    def entity_transitions(self):
        """Wounded resources heal, resources due back reappear, last turn's beams clear."""
        self._hitters = {}
        if self.heal_delay and self._wounded:
            for cell, last_hit in list(self._wounded.items()):
                if self.turn - last_hit >= self.heal_delay:
                    code = self.resource_kinds[cell]
                    self.resource_health[cell] = (self.stag_health if code == STAG
                                                  else self.hare_health)
                    del self._wounded[cell]
        if self._regrowing:
            waiting = []
            for due, code, died_at in self._regrowing:
                places = [cell for cell in self._free_cells() if cell != died_at] \
                    if due <= self.turn else []
                if places:
                    cell = places[int(self.random.random() * len(places))]
                    self.resource_kinds[cell] = code
                    self.resource_health[cell] = (self.stag_health if code == STAG
                                                  else self.hare_health)
                    if code == STAG:
                        self.stags_on_map += 1
                    else:
                        self.hares_on_map += 1
                else:
                    waiting.append((due, code, died_at))
            self._regrowing = waiting
        if self._beams_drawn:
            self.attack_beam[:] = False
            self.punish_beam[:] = False
            self._beams_drawn = False

    def _free_cells(self, among=None) -> list[tuple[int, int]]:
        """Open cells with no resource and no agent (of ``among`` only, if given)."""
        if among is not None:
            return [cell for cell in among if self.is_free(cell)]
        free = ~self.walls & (self.resource_kinds == 0) & self.grid.empty.data
        return list(map(tuple, np.argwhere(free).tolist()))

    # --- Phase 4: the agents act one after another (each calls take_action) -------------
    def take_action(self, agent, action):
        """Pay ``agent``'s pending reward, then apply its action (docs/rules/stag_hunt.md,
        "Round")."""
        action = check.decision(agent, action, len(ACTIONS), "action")
        if agent.pending_reward:
            agent.reward += agent.pending_reward
            agent.pending_reward = 0.0
        agent.acted_turn = self.turn
        self.action_order.append(agent.seat)
        if action in MOVE_TURNS:
            self._move(agent, (agent.orientation + MOVE_TURNS[action]) % 4)
        elif action == TURN_LEFT:
            agent.orientation = (agent.orientation + 3) % 4
        elif action == TURN_RIGHT:
            agent.orientation = (agent.orientation + 1) % 4
        elif action == ATTACK:
            self._attack(agent)
        elif action == PUNISH:
            self._punish(agent)

    def is_free(self, cell) -> bool:
        """Whether ``cell`` is on the grid, open, and holds no resource and no agent."""
        row, col = cell
        return (0 <= row < self.height and 0 <= col < self.width and not self.walls[cell]
                and not self.resource_kinds[cell] and self.grid[cell].is_empty)

    def _move(self, agent, direction):
        """One tile in ``direction``; blocked: nothing happens. Simplified movement turns
        the agent to face the way it moved."""
        dr, dc = DIRECTIONS[direction]
        row, col = agent.cell.coordinate
        target = (row + dr, col + dc)
        if self.is_free(target):
            agent.cell = self.grid[target]
            if self.simplified_movement:
                agent.orientation = direction

    def footprint(self, agent, rays) -> list[tuple[int, int]]:
        """The cells ``rays`` (a footprint, per orientation) cover from ``agent`` now."""
        row, col = agent.cell.coordinate
        height, width, walls = self.height, self.width, self.walls
        cells = []
        for ray in rays[agent.orientation]:
            for dr, dc, hits in ray:
                r, c = row + dr, col + dc
                if not (0 <= r < height and 0 <= c < width) or walls[r, c]:
                    break
                if hits:
                    cells.append((r, c))
        return cells

    def attack_cells(self, agent) -> list[tuple[int, int]]:
        """The cells ``agent``'s attack would hit if fired now."""
        return self.footprint(agent, self.attack_rays)

    def _attack(self, agent):
        cooldown = self.beam_cooldown if self.attack_mode == "beam" else self.attack_cooldown
        if agent.next_attack > self.turn:
            return  # on cooldown: nothing happens, nothing is paid
        agent.next_attack = self.turn + cooldown + 1
        self.attacks += 1
        agent.reward -= self.attack_cost
        self._beams_drawn = True
        for cell in self.attack_cells(agent):
            self.attack_beam[cell] = True
            code = self.resource_kinds[cell]
            if code and (agent.can_hunt or code == HARE):
                self._hit(agent, cell, code)

    def _hit(self, agent, cell, code):
        self.resource_health[cell] -= 1
        self._hitters.setdefault(cell, set()).add(agent.seat)
        if self.resource_health[cell] > 0:
            self._wounded[cell] = self.turn
        else:
            self._defeat(agent, cell, int(code))

    def _defeat(self, agent, cell, code):
        """The resource leaves the map, its kind regrows later elsewhere, and its reward is
        shared (docs/rules/stag_hunt.md, "Rewards")."""
        self.resource_kinds[cell] = 0
        self.resource_health[cell] = 0
        self._wounded.pop(cell, None)
        hitters = tuple(sorted(self._hitters.pop(cell)))
        if code == STAG:
            self.stags_defeated += 1
            self.stags_on_map -= 1
            self.coordinated_stag_kills += len(hitters) >= 2
            agent.stags += 1
            reward, cooldown = self.stag_reward, self.stag_regeneration_cooldown
        else:
            self.hares_defeated += 1
            self.hares_on_map -= 1
            agent.hares += 1
            reward, cooldown = self.hare_reward, self.hare_regeneration_cooldown
        agent.ready = True
        self._regrowing.append((self.turn + cooldown + 1, code, cell))

        recipients = [agent]
        if not agent.exclusive_reward:
            radius, (row, col) = self.reward_sharing_radius, cell
            recipients += [other for other in self.agents if other is not agent
                           and other.cell is not None and other.can_receive_shared_reward
                           and max(abs(other.cell.coordinate[0] - row),
                                   abs(other.cell.coordinate[1] - col)) <= radius]
        share = reward / len(recipients)
        agent.reward += share
        for other in recipients[1:]:
            other.pending_reward += share
            other.given_share(self.turn)
        self.defeats.append(Defeat(self.turn, RESOURCE_NAMES[code], cell, agent.seat, hitters,
                                   tuple(a.seat for a in recipients), share))

    def _punish(self, agent):
        if agent.next_punish > self.turn:
            return
        agent.next_punish = self.turn + self.punish_cooldown + 1
        self.punishments += 1
        agent.reward -= self.punish_cost
        self._beams_drawn = True
        for cell in self.footprint(agent, self.punish_rays):
            self.punish_beam[cell] = True
            for target in list(self.grid[cell].agents):
                if target is not agent:
                    self._punish_hit(target)

    def _punish_hit(self, target):
        self.punish_hits += 1
        target.health -= 1
        if target.health <= 0:
            target.cell = None
            target.removed = True
            target.return_turn = self.turn + self.respawn_lag + 1
            self.removals += 1
            self.agents_removed += 1

    # --- Phase 5: metrics -----------------------------------------------------------------
    def record_metrics(self):
        """The turn's numbers (the DataCollector collects after the step); the episode ends
        after ``max_steps`` turns."""
        defeated = self.stags_defeated + self.hares_defeated
        self.stag_share = self.stags_defeated / defeated if defeated else float("nan")
        self.mean_reward = sum(agent.reward for agent in self.agents) / len(self.agents)
        if self.turn >= self.max_steps:
            self.running = False

    # --- Observation ------------------------------------------------------------------
    def observe(self, agent) -> Observation:
        """``agent``'s observation, built on demand (docs/rules/stag_hunt.md, "Observations")."""
        if agent.cell is None:
            raise ValueError(f"agent {agent.seat} ({agent.behaviour}) is not on the grid "
                             "(removed, or not spawned): it has no observation")
        row, col = agent.cell.coordinate
        radius = self.vision_radius
        codes = window(self.entity_codes(), row, col, radius, outside=WALL)
        beams = np.stack([window(self.attack_beam, row, col, radius, outside=False),
                          window(self.punish_beam, row, col, radius, outside=False)], axis=-1)
        view = np.concatenate([one_hot(codes, self.channels - 2), beams.astype(np.float32)],
                              axis=-1)
        features = np.array([agent.stags, agent.hares, agent.ready,
                             agent.shared_last_turn], dtype=np.float32)
        n = self.embedding_size
        position = np.zeros(n * n, dtype=np.float32)
        position[(row * n // self.height) * n + col * n // self.width] = 1.0
        return Observation(view, features, position)

    def entity_codes(self) -> np.ndarray:
        """The grid as observation channels: empty, wall, stag, hare, agent kinds."""
        codes = _RESOURCE_CHANNEL[self.resource_kinds]
        codes[self.walls] = WALL
        for agent in self.agents:
            if agent.cell is not None:
                codes[agent.cell.coordinate] = KIND_CHANNEL + self.kinds.index(agent.kind)
        return codes

    def resource_cells(self, code) -> list[tuple[int, int]]:
        """Cells holding a resource of ``code`` (STAG or HARE), row-major."""
        return list(map(tuple, np.argwhere(self.resource_kinds == code).tolist()))
