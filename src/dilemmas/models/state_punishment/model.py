"""State Punishment: foraging on a walled grid, with votes on punishing taboo resources.

The rules are docs/rules/state_punishment.md. One ``step()`` is one turn, run as the three
phases of its "Round" (see ``StatePunishmentModel.phases``):
resources spawn, the agents act one after another, the turn is logged.

Choices the sources leave open, made here (also in the rules' last section):

* Each world is a Mesa ``OrthogonalVonNeumannGrid`` of ``(height, width)`` cells addressed
  ``(row, col)``; the border cells are walls (bool property layer ``wall``); resources are
  the int property layer ``resource`` (0 none, 1..5 = A..E); agents are ``CellAgent`` instances.
* The punishment probability is held as an integer count of ``1/D``, where ``D`` is the
  least common denominator of ``initial_punishment`` and ``vote_step`` as written in
  decimal (10 for the defaults), so votes never drift; ``punishment_level`` is that count
  divided by ``D``, correctly rounded.
* ``num_worlds``: seat ``i`` plays in world ``i mod num_worlds``, so worlds differ by at most
  one agent; every world holds the full grid, its own resources and its own spawning.
* Collecting a resource pays its value and, if its kind is taboo, the punishment, within
  the collector's action; its harm goes onto every other agent's ledger at once (all
  worlds). An agent's ledger is applied at the end of its own next action.
  ``harm_received`` counts harm put on an agent's ledger, applied yet or not.
* In composite mode a vote needs a move; "noop" is the only action without one. A move
  blocked by a wall or an agent cancels the whole action, its vote too: "the agent stays;
  nothing else happens".
* The observation's uniform number comes from the model's own generator kept for that
  purpose (``observation_rng``, seeded from ``model.seed``), so building observations, in a
  behaviour or in a notebook, never changes the course of the game.
* ``punishment_magnitude`` must be <= 0 and ``vision_radius`` at most the larger grid side
  (a larger window shows nothing more).
* Initial resource kinds are drawn with ``spawn_weights``, like spawned ones.
* The turn counter ``turn`` advances when the spawn phase opens a turn; the episode ends
  after ``max_steps`` turns, in the log phase.
* ``collect_data=False`` is for speed: no DataCollector; ``model.history`` keeps every action.
"""

import dataclasses
import math

import numpy as np

from dilemmas.models.gridworld import one_hot, open_cells, walled_grid, window
from dilemmas.models.phases import AgentPhase, ModelPhase, PhasedModel
from dilemmas.models.state_punishment.rules import (ACTION_MODES, AGENT_CHANNEL, AGENT_REPORTERS,
                                                    EFFECTS, EMPTY, HARM, KINDS, MODEL_REPORTERS,
                                                    MOVES, PARAMETERS, VALUE, WALL, Action,
                                                    Observation, _exact)


class StatePunishmentModel(PhasedModel):
    """A walled grid of foragers who vote on how likely taboo collecting is punished."""

    model_reporters = MODEL_REPORTERS
    agent_reporters = AGENT_REPORTERS
    parameters = PARAMETERS

    phases = (
        ModelPhase("spawn"),
        AgentPhase("act", "act", order="shuffled"),  # "seat" with activation="sequential"
        ModelPhase("log", method="log_turn"),
    )

    def __init__(self, *, collect_data=True, rng=None, **parameters):
        super().__init__(rng=rng, collect_data=collect_data)
        p = self.check_parameters(parameters)
        self.width = p.width
        self.height = p.height
        self.num_agents = p.num_agents
        self.population = p.population
        self.policy = p.policy
        self.learner = p.learner
        self.max_steps = p.max_steps
        self.taboo = p.taboo
        self.initial_resources = p.initial_resources
        self.spawn_prob = p.spawn_prob
        self.spawn_weights = p.spawn_weights
        self.activation = p.activation
        self.action_mode = p.action_mode
        self.initial_punishment = p.initial_punishment
        self.vote_step = p.vote_step
        self.vote_cost = p.vote_cost
        self.punishment_mode = p.punishment_mode
        self.punishment_magnitude = p.punishment_magnitude
        self.vision_radius = p.vision_radius
        self.full_view = p.full_view
        self.num_worlds = p.num_worlds
        self.composite_views = p.composite_views
        behaviours = self.seat_behaviours(self.num_agents)
        weights = self.spawn_weights
        self.spawn_weights = tuple(w / sum(weights) for w in weights)
        self.cumulative_weights = np.cumsum(self.spawn_weights)[:-1]
        self.action_names = ACTION_MODES[self.action_mode]
        per_world = -(-self.num_agents // self.num_worlds)
        open_per_world = (self.width - 2) * (self.height - 2)
        if open_per_world < per_world + self.initial_resources:
            raise ValueError(
                f"width={self.width}, height={self.height} is too small: {open_per_world} "
                f"open cells "
                f"per world cannot hold {per_world} agents (num_agents={self.num_agents}, "
                f"num_worlds={self.num_worlds}) and initial_resources="
                f"{self.initial_resources}")
        if self.activation == "sequential":
            self.phases = tuple(dataclasses.replace(phase, order="seat")
                                if phase.name == "act" else phase for phase in self.phases)

        initial, step = _exact(self.initial_punishment), _exact(self.vote_step)
        self.denominator = math.lcm(initial.denominator, step.denominator)
        self.p_units = int(initial * self.denominator)
        self.step_units = int(step * self.denominator)
        self.punishment_level = self.p_units / self.denominator

        self.grids = [walled_grid(self.height, self.width, self.random)
                      for _ in range(self.num_worlds)]
        for grid in self.grids:
            grid.create_property_layer("resource", default_value=0, dtype=np.int8)
        self.seats = tuple(cls(self, seat) for seat, cls in enumerate(behaviours))
        for world, grid in enumerate(self.grids):
            players = [agent for agent in self.seats if agent.world == world]
            cells = self.random.sample(open_cells(grid), len(players) + self.initial_resources)
            for agent, cell in zip(players, cells):
                agent.cell = grid[cell]
            for cell, code in zip(cells[len(players):], self._draw_kinds(self.initial_resources)):
                grid.resource.data[cell] = code
        self.open_masks = [~grid.wall.data for grid in self.grids]

        self.observation_rng = np.random.default_rng([self.seed, 1])
        self.turn = 0
        self.history: list[Action] = []
        self.votes_up = self.votes_down = 0
        self.cumulative_votes_up = self.cumulative_votes_down = 0
        self.collected_by_kind = dict.fromkeys(KINDS, 0)
        self.social_harm_generated = 0.0
        self.punishment_total = 0.0
        self.vote_cost_total = 0.0
        self.total_reward = 0.0
        self._set_counts()

        self.start_data_collection()

    # --- Phase 1: spawn ---------------------------------------------------------------
    def spawn(self):
        """A turn opens; every empty open cell spawns a resource with ``spawn_prob``, its
        kind drawn by ``spawn_weights``."""
        self.turn += 1
        self.votes_up = self.votes_down = 0
        for grid, open_mask in zip(self.grids, self.open_masks):
            resource = grid.resource.data
            rows, cols = np.nonzero(open_mask & grid.empty.data & (resource == 0))
            spawned = np.flatnonzero(self.rng.random(rows.size) < self.spawn_prob)
            if spawned.size:
                resource[rows[spawned], cols[spawned]] = self._draw_kinds(spawned.size)

    def _draw_kinds(self, count):
        """Resource codes 1..5 drawn by ``spawn_weights`` (inverse of their distribution)."""
        return np.searchsorted(self.cumulative_weights, self.rng.random(count),
                               side="right") + 1

    # --- Phase 2: the agents act one after another (each calls take_action) ----------
    def take_action(self, agent, action: str):
        """Apply ``agent``'s action: move (collecting what it steps on), then vote, then
        subtract its accumulated harm. Reward = value + punishment + vote cost - harm."""
        if action not in self.action_names:
            raise ValueError(f"agent {agent.seat} ({agent.behaviour}) chose {action!r}; "
                             f"the {self.action_mode} actions are {list(self.action_names)}")
        move, vote = EFFECTS[action]
        kind, value, punishment, cost, blocked = None, 0.0, 0.0, 0.0, False
        if move is not None:
            moved = self._move(agent, MOVES[move])
            blocked = moved is None
            if blocked:  # the agent stays; nothing else happens
                vote = 0
            else:
                kind, value, punishment = moved
        if vote:
            cost = self._vote(agent, vote)
        harm, agent.pending_harm = agent.pending_harm, 0.0
        reward = value + punishment - cost - harm
        agent.reward += reward
        self.total_reward += reward
        self.history.append(Action(self.turn, agent.seat, action, kind, value, punishment,
                                   -cost, harm, reward, blocked))

    def _move(self, agent, offset):
        """Walls and agents block (None); stepping onto a resource collects it.
        Returns ``(kind collected or None, value, punishment)``."""
        grid = self.grids[agent.world]
        row, col = agent.cell.coordinate
        target = (row + offset[0], col + offset[1])
        if grid.wall.data[target] or not grid.empty.data[target]:
            return None
        agent.cell = grid[target]
        code = int(grid.resource.data[target])
        if not code:
            return None, 0.0, 0.0
        grid.resource.data[target] = 0
        kind = KINDS[code - 1]
        agent.collected += 1
        self.collected_by_kind[kind] += 1
        punishment = self._punishment() if kind in self.taboo else 0.0
        self.punishment_total += punishment
        harm = HARM[kind]
        if harm > 0:
            for other in self.seats:
                if other is not agent:
                    other.pending_harm += harm
                    other.harm_received += harm
                    self.social_harm_generated += harm
        return kind, VALUE[kind], punishment

    def _punishment(self):
        if self.punishment_mode == "expected":
            return self.punishment_magnitude * self.punishment_level
        return self.punishment_magnitude if self.random.random() < self.punishment_level else 0.0

    def _vote(self, agent, vote):
        """Move p by one vote step, clamped to [0, 1]; the vote costs even when clamped."""
        self.p_units = min(max(self.p_units + vote * self.step_units, 0), self.denominator)
        self.punishment_level = self.p_units / self.denominator
        if vote > 0:
            self.votes_up += 1
            agent.votes_up += 1
        else:
            self.votes_down += 1
            agent.votes_down += 1
        self.vote_cost_total -= self.vote_cost
        return self.vote_cost

    # --- Phase 3: log -------------------------------------------------------------------
    def log_turn(self):
        """Counters (the DataCollector collects after the step); the episode ends after
        ``max_steps`` turns."""
        self.cumulative_votes_up += self.votes_up
        self.cumulative_votes_down += self.votes_down
        self._set_counts()
        if self.turn >= self.max_steps:
            self.running = False

    def _set_counts(self):
        for kind in KINDS:
            setattr(self, f"collected_{kind}", self.collected_by_kind[kind])
        self.collected = sum(self.collected_by_kind.values())
        self.resources_on_grid = sum(int(np.count_nonzero(g.resource.data)) for g in self.grids)
        self.mean_reward = self.total_reward / self.num_agents

    # --- Observation ------------------------------------------------------------------
    def observe(self, agent) -> Observation:
        """``agent``'s observation, built on demand (docs/rules/state_punishment.md,
        "Observations")."""
        if self.composite_views:
            others = [other for other in self.seats if other is not agent]
            view = np.stack([self._view(a) for a in (agent, *others)])
        else:
            view = self._view(agent)
        features = np.array([self.punishment_level, agent.pending_harm,
                             self.observation_rng.random()])
        return Observation(view, features)

    def _view(self, agent):
        codes = self.entity_codes(agent.world)
        if not self.full_view:
            row, col = agent.cell.coordinate
            codes = window(codes, row, col, self.vision_radius, outside=WALL)
        return one_hot(codes, AGENT_CHANNEL + self.num_agents)

    def entity_codes(self, world: int) -> np.ndarray:
        """The world as observation channels: empty, wall, A..E, agent 0..n-1."""
        grid = self.grids[world]
        resource = grid.resource.data
        codes = np.where(grid.wall.data, WALL, np.where(resource > 0, resource + 1, EMPTY))
        for agent in self.seats:
            if agent.world == world:
                codes[agent.cell.coordinate] = AGENT_CHANNEL + agent.seat
        return codes
