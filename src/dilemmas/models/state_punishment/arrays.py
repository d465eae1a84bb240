"""The State Punishment turn over arrays of episodes: the one implementation of its rules.

docs/rules/state_punishment.md, "World", "Round", "Rewards", "Observations" and "Data
collected". Every function is pure: it takes the ``State`` of ``E`` episodes (each field an
array whose first axis is the episodes) and returns a new one, written with what numpy and
``jax.numpy`` share (``dilemmas.models.xp``). So ``StatePunishmentModel`` plays one episode
with numpy arrays and ``E = 1``, and the batch engine
(``dilemmas.models.state_punishment.batch``) plays thousands at once with the same functions,
compiled by JAX.

A world is a ``(height, width)`` grid whose border cells are walls; ``resource`` holds, per
episode and world, the resource code of every cell (0 none, 1..5 for A..E). Agents are at
``(row, col)``; seat ``i`` plays in world ``i mod num_worlds``.

Randomness comes in as arrays of uniform numbers in [0, 1) that the caller draws, one per
chance the rules give, whether or not it comes up (rules version 2): ``start`` two per open
cell of every world (its place in the order the cells are drawn, and the kind of a resource
put there), ``spawn`` two per cell of every world (whether a resource grows, and its kind),
``act`` one per action (whether a taboo collection is punished, with
``punishment_mode="stochastic"``).
"""

from typing import NamedTuple

import numpy as np

from dilemmas.models.state_punishment.rules import (ACTION_MODES, AGENT_CHANNEL, EFFECTS, EMPTY,
                                                    HARM, KINDS, MOVES, VALUE, WALL)
from dilemmas.models.xp import clamp, counts_per_row, namespace, set_at

#: Value to the collector and harm to every other agent, by resource code (0: none).
VALUES = np.array([0.0, *(VALUE[kind] for kind in KINDS)])
HARMS = np.array([0.0, *(HARM[kind] for kind in KINDS)])


class Rules(NamedTuple):
    """A model's parameters as the turn uses them: numbers, and arrays by seat, by action
    (index in the mode's ``action_names``) and by resource code."""

    height: int
    width: int
    worlds: int
    world_of: np.ndarray          # (k,) each seat's world
    taboo: np.ndarray             # (6,) bool: collecting this code is punished
    move_row: np.ndarray          # (actions,) row offset of the action's move (0: none)
    move_col: np.ndarray          # (actions,) column offset
    moves: np.ndarray             # (actions,) bool: the action has a move
    vote: np.ndarray              # (actions,) -1, 0 or +1
    initial_units: int            # p at the start, in units of 1/denominator
    step_units: int               # a vote moves p by this many units
    denominator: int
    vote_cost: float
    magnitude: float              # punishment_magnitude
    stochastic: bool              # punishment_mode == "stochastic"
    spawn_prob: float
    cumulative_weights: np.ndarray  # (4,) of spawn_weights, for kinds A..D


def rules_of(model) -> Rules:
    """The ``Rules`` of a ``StatePunishmentModel``'s parameters, field by field."""
    effects = [EFFECTS[name] for name in ACTION_MODES[model.action_mode]]
    offsets = np.array([MOVES[move] if move else (0, 0) for move, _ in effects])
    return Rules(
        height=model.height, width=model.width, worlds=model.num_worlds,
        world_of=np.arange(model.num_agents) % model.num_worlds,
        taboo=np.array([False, *(kind in model.taboo for kind in KINDS)]),
        move_row=offsets[:, 0], move_col=offsets[:, 1],
        moves=np.array([move is not None for move, _ in effects]),
        vote=np.array([vote for _, vote in effects]), initial_units=model.initial_units,
        step_units=model.step_units, denominator=model.denominator,
        vote_cost=float(model.vote_cost), magnitude=float(model.punishment_magnitude),
        stochastic=model.punishment_mode == "stochastic", spawn_prob=float(model.spawn_prob),
        cumulative_weights=np.asarray(model.cumulative_weights))


class State(NamedTuple):
    """``E`` episodes: the worlds, the agents, ``p`` and everything counted so far."""

    resource: object        # (E, worlds, height, width) int8 codes
    row: object             # (E, k)
    col: object             # (E, k)
    p_units: object         # (E,) p = p_units / denominator
    pending_harm: object    # (E, k) each agent's ledger
    reward: object          # (E, k) cumulative
    collected: object       # (E, k)
    votes_up: object        # (E, k)
    votes_down: object      # (E, k)
    harm_received: object   # (E, k)
    by_kind: object         # (E, 5) resources collected of each kind
    turn_votes_up: object   # (E,) this turn's votes
    turn_votes_down: object
    cumulative_votes_up: object
    cumulative_votes_down: object
    social_harm: object     # (E,) social_harm_generated
    punishment_total: object
    vote_cost_total: object
    total_reward: object


class Outcome(NamedTuple):
    """What one action did, per episode (``Action`` of the rules, by numbers)."""

    code: object        # resource collected (0: none)
    value: object
    punishment: object
    vote_cost: object   # paid (>= 0)
    harm: object        # the ledger applied
    reward: object
    blocked: object


def open_cells(height: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the cells inside the border, in row-major order."""
    rows, cols = np.mgrid[1:height - 1, 1:width - 1]
    return rows.ravel(), cols.ravel()


def kinds(uniforms, cumulative_weights):
    """Resource codes 1..5 drawn by ``spawn_weights`` (the inverse of their distribution):
    one per uniform number."""
    return 1 + (uniforms[..., None] >= cumulative_weights).sum(axis=-1)


def start(rules: Rules, initial_resources: int, places, resource_kinds) -> State:
    """The episodes at the start ("World", Start): in every world the open cells are taken
    in the order of their numbers in ``places`` ``(E, worlds, open cells)``; its agents, in
    seat order, stand on the first ones and ``initial_resources`` resources lie on the next
    ones, each of the kind its number in ``resource_kinds`` (same shape) draws."""
    xp = namespace(places)
    episodes, worlds, _ = places.shape
    k = len(rules.world_of)
    rows, cols = open_cells(rules.height, rules.width)
    order = xp.argsort(places, axis=-1)
    cell = order[:, rules.world_of, np.arange(k) // worlds]
    players = np.bincount(rules.world_of, minlength=worlds)[:, None]
    rank = xp.argsort(order, axis=-1)
    lies = (rank >= players) & (rank < players + initial_resources)
    codes = xp.where(lies, kinds(resource_kinds, rules.cumulative_weights), 0).astype(xp.int8)
    resource = xp.zeros((episodes, worlds, rules.height * rules.width), dtype=xp.int8)
    resource = set_at(resource, (slice(None), slice(None), rows * rules.width + cols), codes)
    # p is exact: numpy holds a count beyond 2**53 units as a Python integer
    exact = int if xp is not np or rules.denominator <= 2**53 else object
    seats, totals = xp.zeros((episodes, k)), xp.zeros(episodes)
    count, votes = xp.zeros((episodes, k), dtype=int), xp.zeros(episodes, dtype=int)
    return State(resource.reshape(episodes, worlds, rules.height, rules.width),
                 xp.asarray(rows)[cell], xp.asarray(cols)[cell],
                 xp.full(episodes, rules.initial_units, dtype=exact), seats, seats, count,
                 count, count, seats, xp.zeros((episodes, len(KINDS)), dtype=int), votes,
                 votes, votes, votes, totals, totals, totals, totals)


def agents_at(state: State, rules: Rules):
    """``(E, worlds, height, width)``: True where an agent stands."""
    cell = (rules.world_of * rules.height + state.row) * rules.width + state.col
    counts = counts_per_row(cell, rules.worlds * rules.height * rules.width)
    return counts.reshape(state.resource.shape) > 0


def inside(rules: Rules) -> np.ndarray:
    """``(height, width)``: True on the open cells, False on the border's walls."""
    cells = np.zeros((rules.height, rules.width), dtype=bool)
    cells[1:-1, 1:-1] = True
    return cells


def spawn(state: State, rules: Rules, grows, resource_kinds) -> State:
    """"Round", 1: this turn's vote counts start at 0; every open cell with no agent and no
    resource grows one if its number in ``grows`` ``(E, worlds, height, width)`` is below
    ``spawn_prob``, of the kind its number in ``resource_kinds`` draws."""
    xp = namespace(state.resource, grows)
    empty = inside(rules) & ~agents_at(state, rules) & (state.resource == 0)
    grown = empty & (grows < rules.spawn_prob)
    resource = xp.where(grown, kinds(resource_kinds, rules.cumulative_weights),
                        state.resource).astype(xp.int8)
    none = xp.zeros_like(state.turn_votes_up)
    return state._replace(resource=resource, turn_votes_up=none, turn_votes_down=none)


def act(state: State, rules: Rules, seat, action, punished) -> tuple[State, Outcome]:
    """"Round", 2 and "Rewards": in each episode the agent in seat ``seat[e]`` takes action
    ``action[e]`` (an index in the mode's actions). Its move, if any, is blocked by a wall
    or an agent (it stays, and the action's vote is cancelled); otherwise it moves, and
    collects the resource there: its value, the punishment if the kind is taboo (``p``
    times ``punishment_magnitude``, or with ``punishment_mode="stochastic"`` the magnitude
    if its number in ``punished`` ``(E,)`` is below ``p``), and its harm onto every other
    agent's ledger. Then its vote moves ``p`` by a step, clamped to [0, 1], at
    ``vote_cost``; then its own ledger is applied and emptied.
    ``reward = value + punishment - vote_cost - harm``."""
    xp = namespace(state.row, seat)
    episodes, k = state.row.shape
    e = xp.arange(episodes)
    row, col = state.row[e, seat], state.col[e, seat]
    world = xp.asarray(rules.world_of)[seat]
    moves = xp.asarray(rules.moves)[action]
    to_row = row + xp.asarray(rules.move_row)[action]
    to_col = col + xp.asarray(rules.move_col)[action]
    wall = (to_row <= 0) | (to_row >= rules.height - 1) | (to_col <= 0) | (to_col >= rules.width - 1)
    taken = ((xp.asarray(rules.world_of) == world[:, None]) & (state.row == to_row[:, None])
             & (state.col == to_col[:, None])).any(axis=1)
    blocked = moves & (wall | taken)
    moved = moves & ~blocked
    row, col = xp.where(moved, to_row, row), xp.where(moved, to_col, col)
    code = xp.where(moved, state.resource[e, world, row, col], 0)
    resource = set_at(state.resource, (e, world, row, col),
                      xp.where(moved, 0, state.resource[e, world, row, col]))
    value = xp.asarray(VALUES)[code]
    level = punishment_level(state, rules.denominator)
    taboo = xp.asarray(rules.taboo)[code]
    if rules.stochastic:
        punishment = xp.where(taboo & (punished < level), rules.magnitude, 0.0)
    else:
        punishment = xp.where(taboo, rules.magnitude * level, 0.0)
    me = xp.arange(k) == seat[:, None]
    dealt = xp.where(me, 0.0, xp.asarray(HARMS)[code][:, None])
    vote = xp.where(blocked, 0, xp.asarray(rules.vote)[action])
    cost = xp.where(vote != 0, rules.vote_cost, 0.0)
    harm = state.pending_harm[e, seat]
    reward = value + punishment - cost - harm
    gained = xp.where(me, reward[:, None], 0.0)
    took = me & (code > 0)[:, None]
    up, down = vote > 0, vote < 0
    after = state._replace(
        resource=resource,
        row=set_at(state.row, (e, seat), row), col=set_at(state.col, (e, seat), col),
        p_units=xp.clip(state.p_units + vote.astype(state.p_units.dtype) * rules.step_units, 0,
                        rules.denominator),
        pending_harm=xp.where(me, 0.0, state.pending_harm + dealt),
        reward=state.reward + gained, collected=state.collected + took,
        votes_up=state.votes_up + (me & up[:, None]),
        votes_down=state.votes_down + (me & down[:, None]),
        harm_received=state.harm_received + dealt,
        by_kind=state.by_kind + (xp.arange(1, len(KINDS) + 1) == code[:, None]),
        turn_votes_up=state.turn_votes_up + up, turn_votes_down=state.turn_votes_down + down,
        social_harm=state.social_harm + dealt.sum(axis=1),
        punishment_total=state.punishment_total + punishment,
        vote_cost_total=state.vote_cost_total - cost,
        total_reward=state.total_reward + reward)
    return after, Outcome(code, value, punishment, cost, harm, reward, blocked)


def punishment_level(state: State, denominator: int):
    """``(E,)``: ``p``, the count of units divided by the denominator, correctly rounded."""
    return (state.p_units / denominator).astype(float)


def log(state: State) -> State:
    """"Round", 3: the cumulative vote counts add this turn's."""
    return state._replace(cumulative_votes_up=state.cumulative_votes_up + state.turn_votes_up,
                          cumulative_votes_down=state.cumulative_votes_down
                          + state.turn_votes_down)


def codes(state: State, rules: Rules):
    """``(E, worlds, height, width)``: every cell as its observation channel: 0 empty, 1
    wall, 2..6 resources A..E, ``7 + s`` the agent in seat ``s``."""
    xp = namespace(state.resource)
    cells = xp.where(inside(rules), xp.where(state.resource > 0, state.resource + 1, EMPTY),
                     WALL).astype(xp.int8)
    episodes, k = state.row.shape
    return set_at(cells, (xp.arange(episodes)[:, None], rules.world_of, state.row, state.col),
                  (AGENT_CHANNEL + xp.arange(k)).astype(xp.int8))


def windows(cells, state: State, rules: Rules, radius: int, seats):
    """``(E, n, 2r + 1, 2r + 1)``: the channels of the window of radius ``r`` centred on
    each of the ``n`` seats of every episode (``seats`` ``(E, n)``) ("Observations"); cells
    off the grid read as walls."""
    xp = namespace(cells, seats)
    episodes = xp.arange(cells.shape[0])[:, None]
    offsets = xp.arange(-radius, radius + 1)
    rows = state.row[episodes, seats][..., None] + offsets
    cols = state.col[episodes, seats][..., None] + offsets
    on_grid = (((rows >= 0) & (rows < rules.height))[..., :, None]
               & ((cols >= 0) & (cols < rules.width))[..., None, :])
    seen = cells[episodes[..., None, None], xp.asarray(rules.world_of)[seats][..., None, None],
                 clamp(rows, 0, rules.height - 1)[..., :, None],
                 clamp(cols, 0, rules.width - 1)[..., None, :]]
    return xp.where(on_grid, seen, WALL)


def views(state: State, rules: Rules, radius: int, full_view: bool, composite: bool, seats):
    """The float32 one-hot views of the ``n`` seats ``seats`` ``(E, n)`` of every episode
    ("Observations"), ``(E, n, rows, cols, 7 + k)``: the window of radius ``radius``, or with
    ``full_view`` the seat's whole world; with ``composite``, ``(E, n, k, rows, cols, 7 +
    k)``: the seat's own view, then every other seat's in seat order."""
    xp = namespace(state.row, seats)
    k = state.row.shape[1]
    if composite:  # the seat, then the others in seat order
        others = xp.arange(k - 1)
        seats = xp.concatenate((seats[..., None], others + (others >= seats[..., None])), axis=-1)
    cells = codes(state, rules)
    shown = seats.reshape(seats.shape[0], -1)
    if full_view:
        channels = cells[xp.arange(cells.shape[0])[:, None], xp.asarray(rules.world_of)[shown]]
    else:
        channels = windows(cells, state, rules, radius, shown)
    channels = channels.reshape(*seats.shape, *channels.shape[-2:])
    return (channels[..., None] == xp.arange(AGENT_CHANNEL + k)).astype(xp.float32)


def reporters(turn, state: State, denominator: int) -> dict:
    """The model reporters (docs/rules/state_punishment.md, "Data collected"), name -> ``(E,)``
    array, after turn ``turn`` (0: the start)."""
    xp = namespace(state.resource)
    k = state.reward.shape[1]
    row = {"turn": xp.zeros_like(state.turn_votes_up) + turn,
           "punishment_level": punishment_level(state, denominator),
           "votes_up": state.turn_votes_up, "votes_down": state.turn_votes_down,
           "cumulative_votes_up": state.cumulative_votes_up,
           "cumulative_votes_down": state.cumulative_votes_down}
    for i, kind in enumerate(KINDS):
        row[f"collected_{kind}"] = state.by_kind[:, i]
    flat = state.resource.reshape(state.resource.shape[0], -1)
    row.update({"collected": state.by_kind.sum(axis=1),
                "resources_on_grid": (flat > 0).sum(axis=1),
                "social_harm_generated": state.social_harm,
                "punishment_total": state.punishment_total,
                "vote_cost_total": state.vote_cost_total,
                "mean_reward": state.total_reward / k})
    return row
