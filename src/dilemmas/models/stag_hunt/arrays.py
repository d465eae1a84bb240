"""Stag Hunt Physical over arrays of episodes: its rules written once.

docs/rules/stag_hunt.md, "World", "Round", "Actions", "Kill", "Rewards", "Observations" and
the behaviours' *Approach*: the start (``start``), the turn's phases (``begin_turn``,
``returns``, ``transitions``, ``act`` with the kills it makes), the footprints, the
observation's view and position, the breadth-first approach (with which the scripted
hunters' ``batch_decide`` choose, in ``dilemmas.agents.stag_hunt``) and the DataCollector's
model columns (``reporters``). ``StagHuntModel`` plays its one episode with them on numpy,
``dilemmas.models.stag_hunt.batch`` thousands at once, compiled by JAX.

Every function is pure and written with what numpy and ``jax.numpy`` share
(``dilemmas.models.xp``). The agents are given per episode as arrays ``(E, n)`` of rows,
columns and orientations; the walls as ``(E, height, width)`` booleans.
"""

from collections import deque
from typing import NamedTuple

import numpy as np

from dilemmas.models.stag_hunt.rules import ATTACK as ATTACK_ACTION
from dilemmas.models.stag_hunt.rules import PUNISH as PUNISH_ACTION
from dilemmas.models.stag_hunt.rules import (_RESOURCE_CHANNEL, DIRECTIONS, EMPTY, KIND_CHANNEL,
                                             MOVE_TURNS, TURN_LEFT, TURN_RIGHT, WALL, _rays)
from dilemmas.models.xp import (clamp, counts_per_row, namespace, never, put_where, repeat_while,
                                set_at)


class Rays(NamedTuple):
    """A footprint (``rules._rays``) as arrays, per orientation, ray and step along the ray
    (rays padded to one length): the cell's offset, whether it is hit, and whether the step
    exists (a padding step stops the ray)."""

    row: np.ndarray     # (4, rays, steps)
    col: np.ndarray
    hits: np.ndarray
    steps: np.ndarray


def rays(mode: str, attack_range: int, beam_length: int, beam_radius: int) -> Rays:
    """The ``Rays`` of a footprint (``mode``: an attack mode, or ``"punish"``)."""
    table = _rays(mode, attack_range, beam_length, beam_radius)
    length = max(len(ray) for ray in table[0])
    shape = (4, len(table[0]), length)
    row, col = np.zeros(shape, dtype=int), np.zeros(shape, dtype=int)
    hits, steps = np.zeros(shape, dtype=bool), np.zeros(shape, dtype=bool)
    for o, per_orientation in enumerate(table):
        for r, ray in enumerate(per_orientation):
            for s, (d_row, d_col, hit) in enumerate(ray):
                row[o, r, s], col[o, r, s], hits[o, r, s], steps[o, r, s] = d_row, d_col, hit, True
    return Rays(row, col, hits, steps)


def footprint_cells(walls, row, col, orientation, table: Rays):
    """Each agent's footprint cell by cell, in the order of its rays and their steps:
    ``(rows, cols, hit)``, each ``(E, n, rays * steps)``; rows and columns are clipped to
    the map, ``hit`` says which are covered."""
    xp = namespace(walls, row)
    episodes, height, width = walls.shape
    rows = row[..., None, None] + xp.asarray(table.row)[orientation]      # (E, n, rays, steps)
    cols = col[..., None, None] + xp.asarray(table.col)[orientation]
    on_map = (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width)
    rows, cols = clamp(rows, 0, height - 1), clamp(cols, 0, width - 1)
    wall = walls[xp.arange(episodes)[:, None, None, None], rows, cols]
    stops = ~on_map | wall | ~xp.asarray(table.steps)[orientation]
    hit = (xp.cumsum(stops, axis=-1) == 0) & xp.asarray(table.hits)[orientation]
    flat = (*row.shape, -1)
    return rows.reshape(flat), cols.reshape(flat), hit.reshape(flat)


def footprints(walls, row, col, orientation, table: Rays):
    """``(E, n, height, width)``: the cells each of the ``n`` agents' footprint covers now
    ("Footprints"): along each ray, the cells up to its first wall or the map's edge, those
    the footprint hits."""
    xp = namespace(walls, row)
    episodes, height, width = walls.shape
    n, cells = row.shape[1], height * width
    rows, cols, hit = footprint_cells(walls, row, col, orientation, table)
    agent = xp.arange(n)[None, :, None]
    index = xp.where(hit, agent * cells + rows * width + cols, n * cells)
    counts = counts_per_row(index.reshape(episodes, -1), n * cells + 1)[:, :n * cells]
    return counts.reshape(episodes, n, height, width) > 0


def codes(walls, resources, row, col, kind, present):
    """``(E, height, width)``: every cell as its observation channel: 0 empty, 1 wall, 2
    stag, 3 hare, ``4 + i`` an agent of kind ``model.kinds[i]`` (``kind`` ``(E, n)``, the
    index of each agent's kind; ``present`` ``(E, n)``, whether it is on the grid)."""
    xp = namespace(walls, row)
    cells = xp.where(walls, WALL, xp.asarray(_RESOURCE_CHANNEL)[resources])
    episodes = xp.arange(walls.shape[0])[:, None]
    here = xp.where(present, row * walls.shape[2] + col, walls.shape[1] * walls.shape[2])
    flat = xp.concatenate([cells.reshape(walls.shape[0], -1),
                           xp.full((walls.shape[0], 1), EMPTY, dtype=cells.dtype)], axis=1)
    flat = set_at(flat, (episodes, here), KIND_CHANNEL + kind)
    return flat[:, :-1].reshape(walls.shape)


def views(cells, attack_beam, punish_beam, row, col, radius: int, channels: int):
    """``(E, n, 2r + 1, 2r + 1, channels)`` float32 ("Observations", ``view``): the window of
    radius ``radius`` centred on each agent, one-hot over its cells' channels (``cells``
    from ``codes``, off the map a wall), then the attack and punish beams of this turn
    (``(E, height, width)`` booleans; off the map, none)."""
    xp = namespace(cells, row)
    episodes, height, width = cells.shape
    offsets = xp.arange(-radius, radius + 1)
    rows, cols = row[..., None] + offsets, col[..., None] + offsets        # (E, n, side)
    on_map = (((rows >= 0) & (rows < height))[..., :, None]
              & ((cols >= 0) & (cols < width))[..., None, :])
    where = (xp.arange(episodes)[:, None, None, None],
             clamp(rows, 0, height - 1)[..., :, None], clamp(cols, 0, width - 1)[..., None, :])
    seen = xp.where(on_map, cells[where], WALL)
    one_hot = seen[..., None] == xp.arange(channels - 2)
    beams = xp.stack([on_map & attack_beam[where], on_map & punish_beam[where]], axis=-1)
    return xp.concatenate([one_hot, beams], axis=-1).astype(xp.float32)


def positions(row, col, height: int, width: int, embedding_size: int):
    """``(E, n, embedding_size ** 2)`` float32 ("Observations", ``position``): the part of the
    ``n x n`` partition of the world each agent stands in, one-hot."""
    xp = namespace(row)
    n = embedding_size
    part = (row * n // height) * n + col * n // width
    return (part[..., None] == xp.arange(n * n)).astype(xp.float32)


def observation(state, rules, turn, seats, radius: int, channels: int, embedding_size: int):
    """The observation of the agents in seats ``seats`` ``(E, s)`` during turn ``turn``
    ("Observations"): ``(view, features, position)``, ``(E, s, ...)`` float32 each (the view
    of ``views``; stags held, hares held, ready, and whether it was given a share of another
    agent's kill in the previous turn; the position of ``positions``). An agent off the grid
    has none: what these hold for it means nothing."""
    xp = namespace(state.row, seats)
    episodes, height, width = state.walls.shape
    e = xp.arange(episodes)[:, None]
    row, col = state.row[e, seats], state.col[e, seats]
    cells = codes(state.walls, state.resource, state.row, state.col,
                  xp.asarray(rules.kind)[None], state.present)
    view = views(cells, state.attack_beam, state.punish_beam, row, col, radius, channels)
    shared = ((state.shared_before[e, seats] == turn - 1)
              | (state.shared_last[e, seats] == turn - 1)) & (turn > 0)
    features = xp.stack([state.stags[e, seats], state.hares[e, seats], state.ready[e, seats],
                         shared], axis=-1).astype(xp.float32)
    return view, features, positions(row, col, height, width, embedding_size)


def _shifted(cells, direction: int, fill):
    """``(E, height, width)``: at each cell, the value of ``cells`` at its neighbour in
    ``direction`` (``DIRECTIONS``), ``fill`` beyond the map's edge."""
    d_row, d_col = DIRECTIONS[direction]
    xp = namespace(cells)
    edge_row = xp.full_like(cells[:, :1], fill)
    edge_col = xp.full_like(cells[:, :, :1], fill)
    if d_row == -1:
        cells = xp.concatenate((edge_row, cells[:, :-1]), axis=1)
    elif d_row == 1:
        cells = xp.concatenate((cells[:, 1:], edge_row), axis=1)
    if d_col == -1:
        cells = xp.concatenate((edge_col, cells[:, :, :-1]), axis=2)
    elif d_col == 1:
        cells = xp.concatenate((cells[:, :, 1:], edge_col), axis=2)
    return cells


#: The move that goes ``turns`` quarter turns clockwise of the facing, and the turn that
#: faces that way (NOOP's place: already facing it).
_MOVE_BY_TURNS = np.array([next(a for a, t in MOVE_TURNS.items() if t == turns)
                           for turns in range(4)])
_FACE_BY_TURNS = np.array([-1, TURN_RIGHT, TURN_RIGHT, TURN_LEFT])


def approach(free, targets, row, col, orientation):
    """``(E,)``: each agent's action toward the nearest of its ``targets`` ``(E, height,
    width)`` by path over ``free`` cells, -1 for none (docs/rules/stag_hunt.md, "Behaviours",
    *Approach*): the breadth-first search of the rules, neighbours in the order N, E, S, W;
    the first cell taken from the queue with a target beside it decides: at the agent's own
    cell, the turn that faces the first such target (-1 if already facing it), elsewhere the
    move of the path's first step. On numpy one episode's queue at a time
    (``_approach_by_queue``); with JAX every episode layer by layer (``_approach_by_layers``).
    """
    xp = namespace(free, row)
    if xp is np:
        return np.array([_approach_by_queue(free[e], targets[e], int(row[e]), int(col[e]),
                                            int(orientation[e])) for e in range(len(row))],
                        dtype=int)
    return _approach_by_layers(free, targets, row, col, orientation)


def _approach_by_layers(free, targets, row, col, orientation):
    """``approach`` for every episode at once, one layer of the search (the cells at one
    distance) at a time. The queue holds a layer's cells in the order of their paths from
    the agent, read as words of directions (N < E < S < W; a cell's place is its parent's,
    then the direction from it, and its parent the earliest). So the first cell of the
    first layer with a target beside it is reached first by the smallest word, whose first
    letter is the smallest first step of any shortest path to any of that layer's cells
    beside a target: the search carries, for each cell, which first steps begin a shortest
    path to it (bit ``d`` of ``firsts`` for direction ``d``)."""
    xp = namespace(free, row)
    episodes, height, width = free.shape
    everywhere = xp.arange(height * width).reshape(1, height, width)
    start = everywhere == (row * width + col)[:, None, None]
    beside = xp.stack([_shifted(targets, d, False) for d in range(4)], axis=-1)
    near = beside.any(axis=-1)
    facing = xp.argmax((beside & start[..., None]).any(axis=(1, 2)), axis=-1)
    found_at_start = (start & near).any(axis=(1, 2))
    lowest_bit = xp.asarray(_LOWEST_BIT)

    def undecided(carry):
        current, _, _, answer = carry
        return (current.any(axis=(1, 2)) & (answer == -2)).any()

    def layer(carry):
        current, firsts, seen, answer = carry
        found = current & near
        # the lowest bit of any found cell's firsts is the lowest of their lowest bits
        step = lowest_bit[xp.where(found, firsts & -firsts, 16).min(axis=(1, 2))]
        turns = (xp.where(found_at_start, facing, step) - orientation) % 4
        action = xp.where(found_at_start, xp.asarray(_FACE_BY_TURNS)[turns],
                          xp.asarray(_MOVE_BY_TURNS)[turns])
        answer = xp.where((answer == -2) & found.any(axis=(1, 2)), action, answer)
        reached, inherited = xp.zeros_like(current), xp.zeros_like(firsts)
        for direction in range(4):   # the parent one step against ``direction``
            back = (direction + 2) % 4
            parent = _shifted(current, back, False)
            parent_firsts = xp.where(_shifted(start, back, False), 1 << direction,
                                     _shifted(firsts, back, 0))
            reached = reached | parent
            inherited = inherited | xp.where(parent, parent_firsts, 0)
        new = free & ~seen & reached
        return new, xp.where(new, inherited, firsts), seen | new, answer

    carry = (start, xp.zeros(start.shape, dtype=xp.int8), start, xp.full(episodes, -2))
    answer = repeat_while(undecided, layer, carry, xp)[-1]
    return xp.where(answer == -2, -1, answer)


#: The direction of a one-bit mask's bit (``1 << d`` -> ``d``); 16 (no cell found) and the
#: masks that are not one bit give 0, an answer no found cell reads.
_LOWEST_BIT = np.zeros(17, dtype=int)
_LOWEST_BIT[[1, 2, 4, 8]] = range(4)


def _approach_by_queue(free, targets, row: int, col: int, orientation: int) -> int:
    """``approach`` for one episode on numpy (``free`` and ``targets`` ``(height, width)``):
    the same breadth-first search, its queue taken one cell at a time, which on numpy is 5 to
    25 times faster than the layers at any number of episodes."""
    height, width = free.shape
    near = np.zeros((height + 2, width + 2), dtype=bool)
    ahead = [(d, d_row, d_col) for d, (d_row, d_col) in enumerate(DIRECTIONS)]
    for _, d_row, d_col in ahead:
        near[1 - d_row:height + 1 - d_row, 1 - d_col:width + 1 - d_col] |= targets
    near, free = near[1:-1, 1:-1].tolist(), free.tolist()
    targets = targets.tolist()
    if near[row][col]:
        facing = next(d for d, d_row, d_col in ahead
                      if 0 <= row + d_row < height and 0 <= col + d_col < width
                      and targets[row + d_row][col + d_col])
        return int(_FACE_BY_TURNS[(facing - orientation) % 4])
    seen = {(row, col)}
    queue = deque([(row, col, -1)])
    while queue:
        r, c, first = queue.popleft()
        for d, d_row, d_col in ahead:
            r2, c2 = r + d_row, c + d_col
            if 0 <= r2 < height and 0 <= c2 < width and free[r2][c2] and (r2, c2) not in seen:
                step = d if first < 0 else first
                if near[r2][c2]:
                    return int(_MOVE_BY_TURNS[(step - orientation) % 4])
                seen.add((r2, c2))
                queue.append((r2, c2, step))
    return -1


class Rules(NamedTuple):
    """A model's parameters as the turn uses them: numbers, the footprints, and arrays by
    seat (its flags) and by resource code (0 none, 1 stag, 2 hare)."""

    attack: Rays
    punish: Rays
    attack_cooldown: int          # beam_cooldown in beam mode
    punish_cooldown: int
    attack_cost: float
    punish_cost: float
    respawn_lag: int
    simplified_movement: bool
    sharing_radius: int
    reward: np.ndarray            # (3,) by code
    regrow_cooldown: np.ndarray   # (3,) by code
    can_hunt: np.ndarray          # (k,)
    can_receive: np.ndarray       # (k,)
    exclusive: np.ndarray         # (k,)
    kind: np.ndarray              # (k,) the index of its kind in ``model.kinds``
    full_health: np.ndarray       # (3,) a resource's, by code
    agent_health: int
    heal_delay: int
    spawn: np.ndarray             # (height, width): where a returning agent may stand


#: The ``Rules`` fields that are the model's parameters of the same name, as they are.
AS_DECLARED = ("punish_cooldown", "respawn_lag", "agent_health", "heal_delay")


def rules_of(model) -> Rules:
    """The ``Rules`` of a ``StagHuntModel``'s parameters, field by field."""
    beam = model.attack_mode == "beam"
    by_seat = {field: np.array([bool(config[key]) for config in model.agent_config])
               for field, key in (("can_hunt", "can_hunt"),
                                  ("can_receive", "can_receive_shared_reward"),
                                  ("exclusive", "exclusive_reward"))}
    return Rules(
        **{name: getattr(model, name) for name in AS_DECLARED}, **by_seat,
        attack=rays(model.attack_mode, model.attack_range, model.beam_length,
                    model.beam_radius),
        punish=rays("punish", 0, model.beam_length, 0),
        attack_cooldown=model.beam_cooldown if beam else model.attack_cooldown,
        attack_cost=float(model.attack_cost), punish_cost=float(model.punish_cost),
        simplified_movement=bool(model.simplified_movement),
        sharing_radius=model.reward_sharing_radius,
        reward=np.array([0.0, model.stag_reward, model.hare_reward]),
        regrow_cooldown=np.array([0, model.stag_regeneration_cooldown,
                                  model.hare_regeneration_cooldown]),
        kind=np.array([model.kinds.index(config["kind"]) for config in model.agent_config]),
        full_health=np.array([0, model.stag_health, model.hare_health]),
        spawn=_spawn_cells(model))


def _spawn_cells(model) -> np.ndarray:
    """Where a returning agent may stand: anywhere with random spawning, else the spawn
    points."""
    cells = np.ones(model.walls.shape, dtype=bool)
    if model.spawn_points:
        cells[:] = False
        for cell in model.spawn_points:
            cells[cell] = True
    return cells


class State(NamedTuple):
    """``E`` episodes of the game: the map, the resources and their regrowth queue, the
    agents and the counts (docs/rules/stag_hunt.md, "World", "Agent state")."""

    walls: object           # (E, height, width)
    resource: object        # (E, height, width) code: 0 none, 1 stag, 2 hare
    health: object          # (E, height, width) the resource's
    last_hit: object        # (E, height, width) turn of its last hit while wounded, else -1
    hitters: object         # (E, height, width, k) who hit it this turn
    ident: object           # (E, height, width) the resource's number, its regrowth-queue
                            # slot once killed (distinct among the resources on the map and
                            # the queue's; meaningless where there is none)
    attack_beam: object     # (E, height, width)
    punish_beam: object
    row: object             # (E, k)
    col: object
    orientation: object
    agent_health: object
    present: object         # (E, k) on the grid
    removed: object         # (E, k) off the grid, waiting to return
    return_turn: object
    next_attack: object
    next_punish: object
    reward: object          # paid
    pending: object         # shares not yet paid
    stags: object
    hares: object
    ready: object
    shared_before: object   # the turns of its last two shares of another's kill (-1: none)
    shared_last: object
    acted: object           # (E, k) the last turn it acted (-1: none)
    queue_due: object       # (E, Q) killed resources waiting to regrow: due turn, code,
    queue_code: object      # cell of death (row-major), and order of death (-1: empty
    queue_cell: object      # slot)
    queue_order: object
    deaths: object          # (E,) resources killed so far (the next order of death)
    attacks: object         # (E,) this turn's
    punishments: object
    punish_hits: object
    removals: object        # (E,) so far
    agents_removed: object  # (E,) now
    stags_defeated: object
    hares_defeated: object
    coordinated: object
    stags_on_map: object
    hares_on_map: object


#: Quarter turns clockwise of the facing of each action's move (-1: no move).
_MOVE_OF = np.array([MOVE_TURNS.get(action, -1) for action in range(9)])


def _scatter(values, episodes, index, new, where, grid=True):
    """``values`` ``(E, height, width, ...)`` (``grid``; else ``(E, slots, ...)``) with
    ``new`` ``(E, m, ...)`` at the row-major cells (or slots) ``index`` ``(E, m)`` where
    ``where`` holds; the others untouched."""
    shape = values.shape
    cells = (shape[1] * shape[2], *shape[3:]) if grid else shape[1:]
    flat = put_where(values.reshape(shape[0], *cells), (episodes, index), new, where)
    return flat.reshape(shape)


class Kills(NamedTuple):
    """The resources an ATTACK killed, per episode and cell of its footprint ``(E, m)``, in
    the footprint's order: whether killed, the cell (row-major), the code, who hit it this
    turn ``(E, m, k)``, who is paid ``(E, m, k)`` and each one's share."""

    killed: object
    cell: object
    code: object
    hitters: object
    recipients: object
    share: object


def act(state: State, rules: Rules, turn, seat, action) -> tuple[State, Kills]:
    """"Round", 4: in each episode the agent in seat ``seat[e]``, if on the grid, is paid its
    pending reward and takes action ``action[e]`` ("Actions", "Kill", "Rewards"); the new
    state and the resources killed (None where no agent attacked, on numpy)."""
    xp = namespace(state.row, seat)
    episodes, height, width = state.walls.shape
    k = state.row.shape[1]
    e = xp.arange(episodes)
    me = xp.arange(k) == seat[:, None]
    acting = state.present[e, seat]
    mine = me & acting[:, None]
    reward = state.reward + xp.where(mine, state.pending, 0.0)
    pending = xp.where(mine, 0.0, state.pending)
    row, col, facing = state.row[e, seat], state.col[e, seat], state.orientation[e, seat]

    # moves and turns
    moves = xp.asarray(_MOVE_OF)[action]
    direction = (facing + moves) % 4
    to_row = row + xp.asarray([d for d, _ in DIRECTIONS])[direction]
    to_col = col + xp.asarray([d for _, d in DIRECTIONS])[direction]
    on_map = (to_row >= 0) & (to_row < height) & (to_col >= 0) & (to_col < width)
    inside = (e, clamp(to_row, 0, height - 1), clamp(to_col, 0, width - 1))
    taken = (state.present & (state.row == to_row[:, None])
             & (state.col == to_col[:, None])).any(axis=1)
    moved = acting & (moves >= 0) & on_map & ~state.walls[inside] \
        & (state.resource[inside] == 0) & ~taken
    turned = xp.where(action == TURN_LEFT, (facing + 3) % 4,
                      xp.where(action == TURN_RIGHT, (facing + 1) % 4, facing))
    facing = xp.where(acting & ((action == TURN_LEFT) | (action == TURN_RIGHT)), turned,
                      xp.where(moved & rules.simplified_movement, direction, facing))
    row, col = xp.where(moved, to_row, row), xp.where(moved, to_col, col)
    state = state._replace(
        row=xp.where(me, row[:, None], state.row), col=xp.where(me, col[:, None], state.col),
        orientation=xp.where(me, facing[:, None], state.orientation),
        reward=reward, pending=pending, acted=xp.where(mine, turn, state.acted))
    attacks, punishes = acting & (action == ATTACK_ACTION), acting & (action == PUNISH_ACTION)
    state, kills = (state, None) if never(attacks) else _attack(state, rules, turn, seat, attacks)
    return (state if never(punishes) else _punish(state, rules, turn, seat, punishes)), kills


def _attack(state, rules, turn, seat, fires):
    """ATTACK, where ``fires``: off cooldown, the footprint is hit ("Actions", "Kill")."""
    xp = namespace(state.row, seat)
    episodes, height, width = state.walls.shape
    k = state.row.shape[1]
    e = xp.arange(episodes)
    me = xp.arange(k) == seat[:, None]
    fires = fires & (state.next_attack[e, seat] <= turn)
    rows, cols, hit = footprint_cells(state.walls, state.row[e, seat][:, None],
                                       state.col[e, seat][:, None],
                                       state.orientation[e, seat][:, None], rules.attack)
    rows, cols, hit = rows[:, 0], cols[:, 0], hit[:, 0] & fires[:, None]      # (E, m)
    cell = rows * width + cols
    there = (e[:, None], rows, cols)
    code = state.resource[there]
    struck = hit & (code > 0) & (xp.asarray(rules.can_hunt)[seat][:, None] | (code == 2))
    left = state.health[there] - 1
    killed = struck & (left <= 0)
    hitters = state.hitters[there] | me[:, None, :]                          # (E, m, k)
    # a kill's recipients: the killer, and unless it keeps the reward for itself every other
    # agent on the grid that may receive a share, within the sharing radius of the kill
    near = (xp.maximum(xp.abs(state.row[:, None, :] - rows[..., None]),
                       xp.abs(state.col[:, None, :] - cols[..., None])) <= rules.sharing_radius)
    sharing = (near & state.present[:, None, :] & xp.asarray(rules.can_receive)
               & ~me[:, None, :] & ~xp.asarray(rules.exclusive)[seat][:, None, None])
    recipients = (sharing | me[:, None, :]) & killed[..., None]
    share = xp.where(killed, xp.asarray(rules.reward)[code]
                     / xp.maximum(recipients.sum(axis=-1), 1), 0.0)
    received = (share[..., None] * recipients).sum(axis=1)                   # (E, k)
    given = (recipients & ~me[:, None, :]).any(axis=1)
    stag, hare = killed & (code == 1), killed & (code == 2)
    # the killed resources join the regrowth queue, each in its own slot, in the order of
    # the footprint's cells
    nth = xp.cumsum(killed, axis=1) - 1
    slot = state.ident[there]
    due = turn + xp.asarray(rules.regrow_cooldown)[code] + 1
    order = state.deaths[:, None] + nth
    cooldown = turn + rules.attack_cooldown + 1
    beam = _scatter(state.attack_beam, e[:, None], cell, True, hit)
    kills = Kills(killed, cell, code, hitters, recipients, share)
    return state._replace(
        next_attack=xp.where(me & fires[:, None], cooldown, state.next_attack),
        attacks=state.attacks + fires,
        reward=state.reward - xp.where(me & fires[:, None], rules.attack_cost, 0.0)
        + xp.where(me, received, 0.0),
        pending=state.pending + xp.where(me, 0.0, received),
        shared_before=xp.where(given & (state.shared_last != turn), state.shared_last,
                               state.shared_before),
        shared_last=xp.where(given, turn, state.shared_last),
        attack_beam=beam,
        resource=_scatter(state.resource, e[:, None], cell, 0, killed),
        health=_scatter(state.health, e[:, None], cell, xp.where(killed, 0, left), struck),
        last_hit=_scatter(state.last_hit, e[:, None], cell, xp.where(killed, -1, turn), struck),
        hitters=_scatter(state.hitters, e[:, None], cell, xp.where(killed[..., None], False,
                                                                   hitters), struck),
        stags=state.stags + me * stag.sum(axis=1)[:, None],
        hares=state.hares + me * hare.sum(axis=1)[:, None],
        ready=state.ready | (me & killed.any(axis=1)[:, None]),
        stags_defeated=state.stags_defeated + stag.sum(axis=1),
        hares_defeated=state.hares_defeated + hare.sum(axis=1),
        coordinated=state.coordinated + (stag & (hitters.sum(axis=-1) >= 2)).sum(axis=1),
        stags_on_map=state.stags_on_map - stag.sum(axis=1),
        hares_on_map=state.hares_on_map - hare.sum(axis=1),
        queue_due=_scatter(state.queue_due, e[:, None], slot, due, killed,
                              grid=False),
        queue_code=_scatter(state.queue_code, e[:, None], slot, code, killed,
                              grid=False),
        queue_cell=_scatter(state.queue_cell, e[:, None], slot, cell, killed,
                              grid=False),
        queue_order=_scatter(state.queue_order, e[:, None], slot, order, killed,
                              grid=False),
        deaths=state.deaths + killed.sum(axis=1)), kills


def _punish(state, rules, turn, seat, fires):
    """PUNISH, where ``fires``: off cooldown, every other agent in the beam loses 1 health,
    and one at 0 is removed ("Actions")."""
    xp = namespace(state.row, seat)
    episodes = state.walls.shape[0]
    k = state.row.shape[1]
    e = xp.arange(episodes)
    me = xp.arange(k) == seat[:, None]
    fires = fires & (state.next_punish[e, seat] <= turn)
    rows, cols, hit = footprint_cells(state.walls, state.row[e, seat][:, None],
                                       state.col[e, seat][:, None],
                                       state.orientation[e, seat][:, None], rules.punish)
    rows, cols, hit = rows[:, 0], cols[:, 0], hit[:, 0] & fires[:, None]
    struck = ((state.row[:, None, :] == rows[..., None]) & (state.col[:, None, :] == cols[..., None])
              & hit[..., None]).any(axis=1) & state.present & ~me
    health = state.agent_health - struck
    out = struck & (health <= 0)
    width = state.walls.shape[2]
    return state._replace(
        next_punish=xp.where(me & fires[:, None], turn + rules.punish_cooldown + 1,
                             state.next_punish),
        punishments=state.punishments + fires,
        reward=state.reward - xp.where(me & fires[:, None], rules.punish_cost, 0.0),
        punish_beam=_scatter(state.punish_beam, e[:, None], rows * width + cols, True, hit),
        punish_hits=state.punish_hits + struck.sum(axis=1),
        agent_health=health, present=state.present & ~out, removed=state.removed | out,
        return_turn=xp.where(out, turn + rules.respawn_lag + 1, state.return_turn),
        removals=state.removals + out.sum(axis=1),
        agents_removed=state.agents_removed + out.sum(axis=1))


def free(state: State):
    """``(E, height, width)``: the cells on the map that are open and hold no resource and
    no agent."""
    xp = namespace(state.walls)
    episodes, height, width = state.walls.shape
    here = xp.where(state.present, state.row * width + state.col, height * width)
    agents = counts_per_row(here, height * width + 1)[:, :height * width] > 0
    return ~state.walls & (state.resource == 0) & ~agents.reshape(state.walls.shape)


def _pick(cells, uniforms):
    """``(E,)`` the row-major index of the cell of ``cells`` ``(E, height, width)`` a uniform
    number picks (``int(u * count)``-th in row-major order), and whether there was one: its
    row first, by the counts of the rows, then its column in that row."""
    xp = namespace(cells, uniforms)
    episodes, height, width = cells.shape
    per_row = cells.sum(axis=2)                                   # (E, height)
    count = per_row.sum(axis=1)
    nth = (uniforms * count).astype(int)
    upto = xp.cumsum(per_row, axis=1)
    row = xp.minimum((upto <= nth[:, None]).sum(axis=1), height - 1)
    e = xp.arange(episodes)
    nth_in_row = nth - (upto - per_row)[e, row]
    col = (xp.cumsum(cells[e, row], axis=1) <= nth_in_row[:, None]).sum(axis=1)
    return row * width + xp.minimum(col, width - 1), count > 0


def returns(state: State, rules: Rules, turn, places, facings) -> State:
    """"Round", 2: every removed agent whose return turn has come returns, in seat order, on
    a free cell (a free spawn point without random spawning) picked by its number in
    ``places`` ``(E, k)``, facing the way its number in ``facings`` draws, with full health;
    with no such cell it waits."""
    xp = namespace(state.row, places)
    if xp is np and not state.removed.any():  # nobody to return (traced arrays cannot tell)
        return state
    k = state.row.shape[1]
    episodes, height, width = state.walls.shape
    everywhere = xp.arange(height * width).reshape(1, height, width)
    open_cells = free(state) & rules.spawn
    for seat in range(k):
        cell, any_free = _pick(open_cells, places[:, seat])
        back = state.removed[:, seat] & (state.return_turn[:, seat] <= turn) & any_free
        open_cells = open_cells & ~(back[:, None, None] & (everywhere == cell[:, None, None]))
        me = (xp.arange(k) == seat) & back[:, None]
        state = state._replace(
            row=xp.where(me, (cell // width)[:, None], state.row),
            col=xp.where(me, (cell % width)[:, None], state.col),
            orientation=xp.where(me, (facings[:, seat] * 4).astype(int)[:, None],
                                 state.orientation),
            agent_health=xp.where(me, rules.agent_health, state.agent_health),
            present=state.present | me, removed=state.removed & ~me,
            return_turn=xp.where(me, -1, state.return_turn),
            agents_removed=state.agents_removed - back)
    return state


def transitions(state: State, rules: Rules, turn, places) -> State:
    """"Round", 3: this turn's hitters are forgotten; a wounded resource whose last hit is
    ``heal_delay`` turns old heals (never with 0); the killed resources due back reappear, in
    order of death, each on a free cell other than where it died picked by its number in
    ``places`` ``(E, slots)`` (with none, it waits); last turn's beams are cleared."""
    xp = namespace(state.row, places)
    episodes, height, width = state.walls.shape
    heals = (state.last_hit >= 0) & (turn - state.last_hit >= rules.heal_delay) \
        & (rules.heal_delay > 0)
    state = state._replace(
        hitters=xp.zeros_like(state.hitters),
        health=xp.where(heals, xp.asarray(rules.full_health)[state.resource], state.health),
        last_hit=xp.where(heals, -1, state.last_hit),
        attack_beam=xp.zeros_like(state.attack_beam),
        punish_beam=xp.zeros_like(state.punish_beam))
    e = xp.arange(episodes)
    everywhere = xp.arange(height * width).reshape(1, height, width)
    last = state.queue_order.shape[1] + 10 ** 9

    def regrow(carry):
        pending, state = carry                   # the resources due, not yet looked at
        slot = xp.argmin(xp.where(pending, state.queue_order, last), axis=1)  # first to die
        due = pending[e, slot]
        code, died = state.queue_code[e, slot], state.queue_cell[e, slot]
        cell, any_free = _pick(free(state) & (everywhere != died[:, None, None]), places[e, slot])
        grows = (due & any_free)[:, None]
        return pending & (xp.arange(pending.shape[1]) != slot[:, None]), state._replace(
            resource=_scatter(state.resource, e[:, None], cell[:, None], code[:, None], grows),
            ident=_scatter(state.ident, e[:, None], cell[:, None], slot[:, None], grows),
            health=_scatter(state.health, e[:, None], cell[:, None],
                            xp.asarray(rules.full_health)[code][:, None], grows),
            queue_order=_scatter(state.queue_order, e[:, None], slot[:, None], -1, grows,
                                 grid=False),
            stags_on_map=state.stags_on_map + (grows[:, 0] & (code == 1)),
            hares_on_map=state.hares_on_map + (grows[:, 0] & (code == 2)))

    pending = (state.queue_order >= 0) & (state.queue_due <= turn)
    return repeat_while(lambda carry: carry[0].any(), regrow, (pending, state), xp)[1]


def start(rules: Rules, walls, resources, spawn_points, spawned_count: int,
          random_spawning: bool, random_map: bool, resource_density: float,
          stag_probability: float, draws, queue: int) -> State:
    """The episodes at the start ("World"): ``walls`` ``(E, height, width)`` and the map's
    own ``resources`` (codes, 3 a resource of random kind; none on a ``random_map``),
    ``spawn_points`` (booleans ``(E, height, width)``); ``draws(shape)`` gives uniform
    numbers. A uniformly
    random set of ``spawned_count`` seats plays; they stand, in seat order, on distinct
    random free open cells (``random_spawning``) or on the spawn points in row-major order,
    each facing a random way. On a map without resources of its own (a random map), every
    other open cell that is no spawn point holds a resource with ``resource_density``; each
    resource of random kind is a stag with ``stag_probability``. ``queue``: slots of the
    regrowth queue (at least the resources on the map)."""
    xp = namespace(walls)
    episodes, height, width = walls.shape
    k = len(rules.can_hunt)
    cells = height * width
    playing = xp.argsort(xp.argsort(draws((episodes, k)), axis=1), axis=1) < spawned_count
    nth = xp.cumsum(playing, axis=1) - 1                               # among the players
    open_free = (~walls & (resources == 0)).reshape(episodes, cells)
    if random_spawning:
        order = xp.argsort(xp.where(open_free, draws((episodes, cells)), 2.0), axis=1)
    else:
        order = xp.argsort(~spawn_points.reshape(episodes, cells), axis=1, stable=True)
    cell = xp.take_along_axis(order, clamp(nth, 0, cells - 1), axis=1)
    row, col = cell // width, cell % width
    orientation = (draws((episodes, k)) * 4).astype(int)
    here = xp.where(playing, cell, cells)
    standing = counts_per_row(here, cells + 1)[:, :cells].reshape(walls.shape) > 0
    if random_map:
        lies = ~walls & ~standing & ~spawn_points & (draws(walls.shape) < resource_density)
        resources = xp.where(lies, 3, 0)
    kinds = xp.where(draws(walls.shape) < stag_probability, 1, 2)
    resource = xp.where(resources == 3, kinds, resources).astype(int)
    none = xp.full((episodes, k), -1)
    zero_k, zero = xp.zeros((episodes, k), dtype=int), xp.zeros(episodes, dtype=int)
    slots = xp.full((episodes, queue), -1)
    lying = (resource > 0).reshape(episodes, cells)
    return State(
        walls=walls, resource=resource,
        ident=(xp.cumsum(lying, axis=1) - 1).reshape(walls.shape),
        health=xp.asarray(rules.full_health)[resource], last_hit=xp.full(walls.shape, -1),
        hitters=xp.zeros((*walls.shape, k), dtype=bool),
        attack_beam=xp.zeros(walls.shape, dtype=bool),
        punish_beam=xp.zeros(walls.shape, dtype=bool),
        row=row, col=col, orientation=orientation,
        agent_health=xp.full((episodes, k), rules.agent_health), present=playing,
        removed=xp.zeros((episodes, k), dtype=bool), return_turn=none, next_attack=zero_k,
        next_punish=zero_k, reward=xp.zeros((episodes, k)), pending=xp.zeros((episodes, k)),
        stags=zero_k, hares=zero_k, ready=xp.zeros((episodes, k), dtype=bool),
        shared_before=none, shared_last=none, acted=none, queue_due=slots, queue_code=slots,
        queue_cell=slots, queue_order=slots, deaths=zero, attacks=zero, punishments=zero,
        punish_hits=zero, removals=zero, agents_removed=zero, stags_defeated=zero,
        hares_defeated=zero, coordinated=zero,
        stags_on_map=(resource == 1).sum(axis=(1, 2)),
        hares_on_map=(resource == 2).sum(axis=(1, 2)))


def begin_turn(state: State) -> State:
    """"Round", 1: this turn's counts start at 0."""
    xp = namespace(state.attacks)
    none = xp.zeros_like(state.attacks)
    return state._replace(attacks=none, punishments=none, punish_hits=none)


def reporters(turn, state: State, playing) -> dict:
    """The model reporters (docs/rules/stag_hunt.md, "Data collected"), name -> ``(E,)``
    array, after turn ``turn`` (0: the start); ``playing`` ``(E, k)``: the seats spawned."""
    xp = namespace(state.row)
    defeated = state.stags_defeated + state.hares_defeated
    return {
        "turn": xp.zeros_like(state.attacks) + turn,
        "stags_defeated": state.stags_defeated, "hares_defeated": state.hares_defeated,
        "coordinated_stag_kills": state.coordinated,
        "stag_share": xp.where(defeated > 0, state.stags_defeated / xp.maximum(defeated, 1),
                               xp.nan),
        "attacks": state.attacks, "punishments": state.punishments,
        "punish_hits": state.punish_hits, "removals": state.removals,
        "agents_removed": state.agents_removed, "stags_on_map": state.stags_on_map,
        "hares_on_map": state.hares_on_map,
        "mean_reward": xp.where(playing, state.reward, 0.0).sum(axis=1) / playing.sum(axis=1)}
