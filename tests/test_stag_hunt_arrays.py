"""Stag Hunt over arrays (``dilemmas.models.stag_hunt.arrays``), which the Mesa model plays on
numpy (its rules are tested through the model in tests/test_stag_hunt_rules.py and
tests/test_stag_hunt_model.py): traced by JAX, the footprints, observations, actions, returns
and transitions are what they are with numpy on many states of several configurations
(every attack mode, random maps with walls, an ASCII map, agents removed); the breadth-first
approach is a search written apart here, over the Mesa grid (the behaviours' only form is
their array one, ``batch_decide``), and a hunter's choice on the model is its
``batch_decide`` on the state the model shows. That the batch engine plays the model's game
in distribution is tests/test_batch_parity.py's."""

from collections import deque

import numpy as np
import pytest

from dilemmas import GAMES
from dilemmas.models.stag_hunt import arrays
from dilemmas.models.stag_hunt.rules import DIRECTIONS, MOVE_TURNS, TURN_LEFT, TURN_RIGHT

CONFIGS = [
    {},
    {"attack_mode": "single", "attack_range": 4, "wall_density": 0.2},
    {"attack_mode": "beam", "beam_length": 4, "beam_radius": 2, "wall_density": 0.3,
     "height": 9, "width": 11},
    {"num_agents": 4, "num_agents_to_spawn": 4, "respawn_lag": 2, "agent_health": 1,
     "punish_cooldown": 0, "vision_radius": 2, "embedding_size": 4},
    {"ascii_map": "WWWWWWW\nWP.1.2W\nW.W.W.W\nW2..aPW\nWWWWWWW", "attack_mode": "beam",
     "random_agent_spawning": False},
]


def on_grid(model):
    return [agent for agent in model.agents if agent.cell is not None]


def inputs(model, agents, xp):
    """The model's state as the array functions take it, one episode."""
    def episode(values, dtype=None):
        return xp.asarray(np.asarray(values, dtype=dtype)[None])
    places = [agent.cell.coordinate for agent in agents]
    return dict(walls=episode(model.walls), resources=episode(model.resource_kinds, int),
                row=episode([r for r, _ in places], int), col=episode([c for _, c in places], int),
                orientation=episode([agent.orientation for agent in agents], int),
                kind=episode([model.kinds.index(agent.kind) for agent in agents], int),
                attack_beam=episode(model.attack_beam, bool),
                punish_beam=episode(model.punish_beam, bool))


def check_state(model, xp):
    """The footprints and observations of every agent on the grid with ``xp`` are the
    model's (numpy: ``attack_cells`` and ``observe``)."""
    agents = on_grid(model)
    if not agents:
        return 0
    given = inputs(model, agents, xp)
    height, width = model.walls.shape
    masks = np.asarray(arrays.footprints(given["walls"], given["row"], given["col"],
                                         given["orientation"], model.rules.attack))[0]
    for agent, mask in zip(agents, masks):
        expected = np.zeros((height, width), dtype=bool)
        for cell in model.attack_cells(agent):
            expected[cell] = True
        assert np.array_equal(mask, expected), (agent.seat, agent.orientation, model.turn)
    present = xp.ones(given["row"].shape, dtype=bool)
    cells = arrays.codes(given["walls"], given["resources"], given["row"], given["col"],
                         given["kind"], present)
    seen = np.asarray(arrays.views(cells, given["attack_beam"], given["punish_beam"],
                                   given["row"], given["col"], model.vision_radius,
                                   model.channels))[0]
    where = np.asarray(arrays.positions(given["row"], given["col"], height, width,
                                        model.embedding_size))[0]
    for agent, view, position in zip(agents, seen, where):
        observation = model.observe(agent)
        assert np.array_equal(view, observation.view), (agent.seat, model.turn)
        assert np.array_equal(position, observation.position), (agent.seat, model.turn)
    return len(agents)


def test_jax_arrays_give_the_same_footprints_and_views():
    import jax.numpy as jnp

    checked = 0
    for parameters in CONFIGS:
        model = GAMES["stag_hunt"].model(**parameters, max_steps=10, collect_data=False, rng=1)
        while model.running:
            model.step()
            checked += check_state(model, jnp)
    assert checked >= len(CONFIGS) * 10


def free_cells(model):
    """``model.is_free`` of every cell."""
    height, width = model.walls.shape
    return np.array([[model.is_free((r, c)) for c in range(width)] for r in range(height)])


def approach(model, agent, targets) -> int | None:
    """My own breadth-first search (the behaviours' docstring): the action toward the
    nearest of ``targets`` in place, facing it -- a move, a turn, or None when already in
    place; None too when no target can be reached. Neighbours are tried N, E, S, W."""
    def face(direction):
        return (None, TURN_RIGHT, TURN_RIGHT, TURN_LEFT)[(direction - agent.orientation) % 4]

    def move(direction):
        turns = (direction - agent.orientation) % 4
        return next(action for action, t in MOVE_TURNS.items() if t == turns)

    targets = set(targets)
    start = agent.cell.coordinate
    first_step = {start: None}
    queue = deque([start])
    while queue:
        row, col = cell = queue.popleft()
        for direction, (dr, dc) in enumerate(DIRECTIONS):
            if (row + dr, col + dc) in targets:
                step = first_step[cell]
                return face(direction) if step is None else move(step)
        for direction, (dr, dc) in enumerate(DIRECTIONS):
            nxt = (row + dr, col + dc)
            if nxt not in first_step and model.is_free(nxt):
                first_step[nxt] = direction if first_step[cell] is None else first_step[cell]
                queue.append(nxt)
    return None


def check_approach(model, xp, rng):
    agents = on_grid(model)
    checked = 0
    free = free_cells(model)
    stags, hares = (model.resource_kinds == 1), (model.resource_kinds == 2)
    for targets in (stags, hares, stags | hares, rng.random(free.shape) < 0.05):
        for agent in agents:
            expected = approach(model, agent, map(tuple, np.argwhere(targets).tolist()))
            row, col = agent.cell.coordinate
            found = arrays.approach(xp.asarray(free[None]), xp.asarray(targets[None]),
                                    xp.asarray([row]), xp.asarray([col]),
                                    xp.asarray([agent.orientation]))
            assert int(found[0]) == (-1 if expected is None else expected), \
                (agent.seat, model.turn, row, col, agent.orientation)
            checked += 1
    return checked


@pytest.mark.parametrize("parameters", CONFIGS, ids=[str(i) for i in range(len(CONFIGS))])
def test_approach_is_the_behaviours(parameters):
    rng = np.random.default_rng(CONFIGS.index(parameters))
    checked = 0
    for seed in range(3):
        model = GAMES["stag_hunt"].model(**parameters, population="cooperator",
                                         max_steps=20, collect_data=False, rng=seed)
        while model.running:
            model.step()
            checked += check_approach(model, np, rng)
    assert checked >= 3 * 20 * 4


def test_approach_with_jax_is_the_same():
    import jax
    import jax.numpy as jnp

    decide = jax.jit(arrays.approach)
    rng = np.random.default_rng(3)
    for parameters in CONFIGS:
        model = GAMES["stag_hunt"].model(**parameters, population="cooperator",
                                         max_steps=8, collect_data=False, rng=2)
        while model.running:
            model.step()
            free = free_cells(model)
            for agent in on_grid(model):
                targets = rng.random(free.shape) < 0.1
                row, col = agent.cell.coordinate
                given = (free[None], targets[None], np.array([row]), np.array([col]),
                         np.array([agent.orientation]))
                assert int(arrays.approach(*given)[0]) == int(
                    decide(*(jnp.asarray(x) for x in given))[0])


def state_of(model, xp=np) -> arrays.State:
    """The model's state, one episode, as ``xp`` arrays."""
    return arrays.State(*(xp.asarray(value) for value in model.state))


def assert_same(found, expected, where):
    for name in arrays.State._fields:
        a, b = np.asarray(getattr(found, name)), np.asarray(getattr(expected, name))
        if b.dtype.kind == "f":
            np.testing.assert_allclose(a, b, rtol=1e-6, err_msg=f"{name} {where}")
        else:
            assert np.array_equal(a, b), (name, where)


ACT_CONFIGS = CONFIGS + [
    {"population": "cooperator", "num_agents": 4, "num_agents_to_spawn": 4, "height": 7,
     "width": 7, "resource_density": 0.5, "attack_cooldown": 0, "punish_cooldown": 0,
     "agent_health": 2, "heal_delay": 3, "hare_health": 2},
    {"attack_mode": "beam", "beam_radius": 3, "attack_cost": 0.5, "punish_cost": 0.25,
     "agent_config": [{"exclusive_reward": True}, {"can_receive_shared_reward": False},
                      {"can_hunt": False}], "num_agents_to_spawn": 3, "height": 8, "width": 8,
     "resource_density": 0.6, "beam_cooldown": 0, "reward_sharing_radius": 4},
]


def test_an_action_over_jax_arrays_is_the_same():
    """``arrays.act`` traced by JAX gives the state and the kills it gives with numpy
    (rewards in float32)."""
    import jax
    import jax.numpy as jnp

    parameters = ACT_CONFIGS[-2]
    model = GAMES["stag_hunt"].model(**parameters, max_steps=30, collect_data=False, rng=4)
    rules = model.rules
    step = jax.jit(lambda state, turn, seat, action: arrays.act(state, rules, turn, seat, action))
    rng = np.random.default_rng(9)
    kills = 0
    while model.running:
        model.step()
        state = state_of(model)
        for seat in range(len(model.seats)):
            action = np.array([int(rng.choice([1, 4, 7, 7, 8]))])
            expected = arrays.act(state, rules, model.turn, np.array([seat]), action)
            found = step(arrays.State(*map(jnp.asarray, state)), model.turn, jnp.asarray([seat]),
                         jnp.asarray(action))
            assert_same(found[0], expected[0], (model.turn, seat))
            if expected[1] is None:  # no attack: numpy skips it, JAX finds no kill
                assert action[0] != arrays.ATTACK_ACTION and not found[1].killed.any()
            else:
                for name, a, b in zip(arrays.Kills._fields, found[1], expected[1]):
                    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6,
                                               err_msg=name)
                kills += int(expected[1].killed.sum())
            state = expected[0]
    assert kills


def test_returns_and_transitions_over_jax_arrays_are_the_same():
    """``arrays.returns`` and ``arrays.transitions`` traced by JAX give the state they give
    with numpy, with the same uniform numbers, on every turn of an episode with removals,
    healing and regrowth."""
    import jax
    import jax.numpy as jnp

    parameters = dict(CONFIGS[3], height=7, width=7, resource_density=0.5, heal_delay=2,
                      hare_health=2)
    model = GAMES["stag_hunt"].model(**parameters, max_steps=40, collect_data=False, rng=4)
    rules = model.rules

    def phases(state, turn, places, facings, slots):
        state = arrays.returns(state, rules, turn, places, facings)
        return arrays.transitions(state, rules, turn, slots)

    traced = jax.jit(phases)
    rng = np.random.default_rng(5)
    returned = regrown = 0
    while model.running:
        model.step()
        state = state_of(model)
        k, slots = state.row.shape[1], state.queue_order.shape[1]
        draws = [rng.random((1, k)).astype(np.float32), rng.random((1, k)).astype(np.float32),
                 rng.random((1, slots)).astype(np.float32)]
        turn = model.turn + 1
        expected = phases(state, turn, *draws)
        found = traced(state_of(model, jnp), turn, *(jnp.asarray(d) for d in draws))
        assert_same(found, expected, turn)
        returned += int(expected.agents_removed[0] < state.agents_removed[0])
        regrown += int((expected.queue_order[0] >= 0).sum() < (state.queue_order[0] >= 0).sum())
    assert returned and regrown


HUNTERS = ("hare_hunter", "stag_hunter", "cooperator", "cooperator:2,stag_hunter:1",
           "hare_hunter:1,cooperator:2")


def hunter_batch(model, seat, u, xp=np):
    from types import SimpleNamespace
    return SimpleNamespace(xp=xp, model=model, rules=model.rules, t=model.turn,
                           current=state_of(model, xp), acting=xp.asarray([seat]),
                           draw=lambda shape: xp.full(shape, u))


@pytest.mark.parametrize("population", HUNTERS)
@pytest.mark.parametrize("parameters", ACT_CONFIGS, ids=[str(i) for i in range(len(ACT_CONFIGS))])
def test_the_hunters_decide_on_arrays_as_in_the_model(parameters, population):
    """Every decision of the scripted hunters on the model (``choose_action``, from their
    ``batch_decide`` on the model's episode) is their ``batch_decide`` on the state the
    model shows, with the same random number."""
    rng = np.random.default_rng([HUNTERS.index(population), ACT_CONFIGS.index(parameters)])
    k = parameters.get("num_agents", 3)
    names = [entry.split(":")[0] for entry in population.split(",")]
    if len(names) > 1:
        population = f"{names[0]}:1,{names[1]}:{k - 1}"
    decisions = 0
    for seed in range(2):
        model = GAMES["stag_hunt"].model(**{**parameters, "population": population},
                                         max_steps=30, collect_data=False, rng=seed)
        for agent in model.seats:
            mesa_choose = agent.choose_action

            def choose(agent=agent, mesa_choose=mesa_choose):
                nonlocal decisions
                u = float(rng.random())
                random = model.random.random
                model.random.random = lambda: u
                expected = mesa_choose()
                model.random.random = random
                found = type(agent).batch_decide(hunter_batch(model, agent.seat, u), None, "act")
                assert int(found[0]) == expected, (agent.seat, agent.behaviour, model.turn)
                decisions += 1
                return expected

            agent.choose_action = choose
        model.run_model()
    assert decisions >= 2 * 30


@pytest.mark.parametrize("behaviour", ["hare_hunter", "stag_hunter", "cooperator"])
def test_the_hunters_decide_with_jax_as_with_numpy(behaviour):
    import jax
    import jax.numpy as jnp

    parameters = ACT_CONFIGS[-2]
    model = GAMES["stag_hunt"].model(**{**parameters, "population": behaviour}, max_steps=10,
                                     collect_data=False, rng=6)
    cls = GAMES["stag_hunt"].behaviours[behaviour]

    def traced(state, seat, turn, u):
        from types import SimpleNamespace
        batch = SimpleNamespace(xp=jnp, model=model, rules=arrays.rules_of(model), t=turn,
                                current=state, acting=seat,
                                draw=lambda shape: jnp.full(shape, u))
        return cls.batch_decide(batch, None, "act")

    decide = jax.jit(traced)
    rng = np.random.default_rng(2)
    while model.running:
        model.step()
        for agent in [a for a in model.agents if a.cell is not None]:
            u = float(np.float32(rng.random()))
            expected = cls.batch_decide(hunter_batch(model, agent.seat, u), None, "act")
            found = decide(state_of(model, jnp), jnp.asarray([agent.seat]), model.turn, u)
            assert int(found[0]) == int(expected[0]), (agent.seat, model.turn)
