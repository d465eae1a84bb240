"""Stag Hunt's footprints and observations over arrays (``dilemmas.models.stag_hunt.arrays``)
are the Mesa model's: for every agent on the grid in many states of several configurations
(every attack mode, random maps with walls, an ASCII map, agents removed), the cells each
footprint covers equal ``StagHuntModel.footprint``'s, and the view and position equal
``StagHuntModel.observe``'s; with numpy and with JAX arrays."""

import numpy as np
import pytest

from dilemmas import GAMES
from dilemmas.models.stag_hunt import arrays

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
    agents = on_grid(model)
    if not agents:
        return 0
    given = inputs(model, agents, xp)
    height, width = model.walls.shape
    for mode_rays, table in ((model.attack_rays, arrays.rays(model.attack_mode, model.attack_range,
                                                              model.beam_length, model.beam_radius)),
                             (model.punish_rays, arrays.rays("punish", 0, model.beam_length, 0))):
        masks = np.asarray(arrays.footprints(given["walls"], given["row"], given["col"],
                                             given["orientation"], table))[0]
        for agent, mask in zip(agents, masks):
            expected = np.zeros((height, width), dtype=bool)
            for cell in model.footprint(agent, mode_rays):
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


@pytest.mark.parametrize("parameters", CONFIGS, ids=[str(i) for i in range(len(CONFIGS))])
def test_footprints_and_views_are_the_models(parameters):
    checked = 0
    for seed in range(4):
        model = GAMES["stag_hunt"].model(**parameters, max_steps=25, collect_data=False,
                                         rng=seed)
        checked += check_state(model, np)
        while model.running:
            model.step()
            checked += check_state(model, np)
    assert checked >= 4 * 25


def test_jax_arrays_give_the_same_footprints_and_views():
    import jax.numpy as jnp

    for parameters in CONFIGS:
        model = GAMES["stag_hunt"].model(**parameters, max_steps=10, collect_data=False, rng=1)
        while model.running:
            model.step()
            check_state(model, jnp)


def free_cells(model):
    """``model.is_free`` of every cell."""
    height, width = model.walls.shape
    return np.array([[model.is_free((r, c)) for c in range(width)] for r in range(height)])


def check_approach(model, xp, rng):
    agents = on_grid(model)
    checked = 0
    free = free_cells(model)
    stags, hares = (model.resource_kinds == 1), (model.resource_kinds == 2)
    for targets in (stags, hares, stags | hares, rng.random(free.shape) < 0.05):
        for agent in agents:
            expected = agent.approach(list(map(tuple, np.argwhere(targets).tolist())))
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
    """The Mesa model's state as ``arrays.State`` of one episode."""
    height, width = model.walls.shape
    k = len(model.seats)
    last_hit = np.full((height, width), -1)
    for cell, turn in model._wounded.items():
        last_hit[cell] = turn
    hitters = np.zeros((height, width, k), dtype=bool)
    for cell, seats in model._hitters.items():
        hitters[cell][list(seats)] = True
    seats = model.seats
    cells = [agent.cell.coordinate if agent.cell is not None else (0, 0) for agent in seats]
    queue = np.full((4, height * width), -1)
    for slot, (due, code, (r, c)) in enumerate(model._regrowing):
        queue[:, slot] = due, code, r * width + c, slot

    def per_seat(values, dtype=None):
        return np.array([values], dtype=dtype)

    def none_is(value):
        return -1 if value is None else value

    fields = dict(
        walls=model.walls.copy(), resource=model.resource_kinds.astype(int),
        health=model.resource_health.astype(int), last_hit=last_hit, hitters=hitters,
        attack_beam=model.attack_beam.copy(), punish_beam=model.punish_beam.copy())
    fields = {name: value[None] for name, value in fields.items()}
    fields.update(
        row=per_seat([r for r, _ in cells]), col=per_seat([c for _, c in cells]),
        orientation=per_seat([a.orientation for a in seats]),
        agent_health=per_seat([a.health for a in seats]),
        present=per_seat([a.cell is not None for a in seats]),
        removed=per_seat([a.removed for a in seats]),
        return_turn=per_seat([none_is(a.return_turn) for a in seats]),
        next_attack=per_seat([a.next_attack for a in seats]),
        next_punish=per_seat([a.next_punish for a in seats]),
        reward=per_seat([a.reward for a in seats], float),
        pending=per_seat([a.pending_reward for a in seats], float),
        stags=per_seat([a.stags for a in seats]), hares=per_seat([a.hares for a in seats]),
        ready=per_seat([a.ready for a in seats]),
        shared_before=per_seat([none_is(a.shared_turns[0]) for a in seats]),
        shared_last=per_seat([none_is(a.shared_turns[1]) for a in seats]),
        acted=per_seat([a.acted_turn for a in seats]),
        queue_due=queue[0][None], queue_code=queue[1][None], queue_cell=queue[2][None],
        queue_order=queue[3][None], deaths=np.array([len(model._regrowing)]))
    for name in ("attacks", "punishments", "punish_hits", "removals", "agents_removed",
                 "stags_defeated", "hares_defeated", "stags_on_map", "hares_on_map"):
        fields[name] = np.array([getattr(model, name)])
    fields["coordinated"] = np.array([model.coordinated_stag_kills])
    return arrays.State(**{name: xp.asarray(fields[name]) for name in arrays.State._fields})


def queued(state):
    """The regrowth queue in order of death: (due, code, cell)."""
    order = np.asarray(state.queue_order)[0]
    slots = [slot for slot in np.argsort(order, kind="stable") if order[slot] >= 0]
    return [(int(state.queue_due[0][s]), int(state.queue_code[0][s]),
             int(state.queue_cell[0][s])) for s in slots]


def assert_same(found, expected, where):
    for name in arrays.State._fields:
        if name.startswith("queue_") or name == "deaths":
            continue
        a, b = np.asarray(getattr(found, name)), np.asarray(getattr(expected, name))
        if name in ("row", "col"):  # a place means something only on the grid
            a, b = a[np.asarray(expected.present)], b[np.asarray(expected.present)]
        if name in ("reward", "pending"):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=f"{name} {where}")
        else:
            assert np.array_equal(a, b), (name, where)
    assert queued(found) == queued(expected), where


ACT_CONFIGS = CONFIGS + [
    {"population": "cooperator", "num_agents": 4, "num_agents_to_spawn": 4, "height": 7,
     "width": 7, "resource_density": 0.5, "attack_cooldown": 0, "punish_cooldown": 0,
     "agent_health": 2, "heal_delay": 3, "hare_health": 2},
    {"attack_mode": "beam", "beam_radius": 3, "attack_cost": 0.5, "punish_cost": 0.25,
     "agent_config": [{"exclusive_reward": True}, {"can_receive_shared_reward": False},
                      {"can_hunt": False}], "num_agents_to_spawn": 3, "height": 8, "width": 8,
     "resource_density": 0.6, "beam_cooldown": 0, "reward_sharing_radius": 4},
]


@pytest.mark.parametrize("parameters", ACT_CONFIGS, ids=[str(i) for i in range(len(ACT_CONFIGS))])
def test_an_action_over_arrays_is_the_models(parameters):
    """Each agent's action, applied by ``arrays.act`` to the model's state, gives the state
    the model's ``take_action`` gives (rewards to 1e-12: a kill's shares add in another
    order)."""
    rng = np.random.default_rng(ACT_CONFIGS.index(parameters))
    compared, seen = 0, {"kill": 0, "share": 0, "removal": 0, "queued": 0}
    for seed in range(3):
        model = GAMES["stag_hunt"].model(**parameters, max_steps=30, collect_data=False,
                                         rng=seed)
        rules = arrays.rules_of(model)
        model.step()
        while model.running:
            model.advance_turn()
            model.update_removals()
            model.entity_transitions()
            for agent in list(model.agents):
                if agent.cell is None:
                    continue
                action = int(rng.choice(9, p=[.05, .1, .1, .1, .1, .05, .05, .3, .15]))
                before = state_of(model)
                found = arrays.act(before, rules, model.turn, np.array([agent.seat]),
                                   np.array([action]))
                model.take_action(agent, action)
                after = state_of(model)
                assert_same(found, after, (seed, model.turn, agent.seat, action))
                compared += 1
                seen["kill"] += int(after.deaths[0] > before.deaths[0])
                seen["share"] += int((after.pending > before.pending).any())
                seen["removal"] += int(after.removals[0] > before.removals[0])
                seen["queued"] += len(queued(before)) > 1
            model.record_metrics()
    assert compared >= 100 and seen["kill"]


def test_an_action_over_jax_arrays_is_the_same():
    """``arrays.act`` traced by JAX gives the state it gives with numpy (rewards in float32)."""
    import jax
    import jax.numpy as jnp

    parameters = ACT_CONFIGS[-2]
    model = GAMES["stag_hunt"].model(**parameters, max_steps=12, collect_data=False, rng=4)
    rules = arrays.rules_of(model)
    step = jax.jit(lambda state, turn, seat, action: arrays.act(state, rules, turn, seat, action))
    rng = np.random.default_rng(9)
    model.step()
    while model.running:
        model.step()
        state = state_of(model)
        for agent in [a for a in model.agents if a.cell is not None]:
            action = np.array([int(rng.choice([1, 4, 7, 8]))])
            expected = arrays.act(state, rules, model.turn, np.array([agent.seat]), action)
            found = step(state_of(model, jnp), model.turn, jnp.asarray([agent.seat]),
                         jnp.asarray(action))
            for name in arrays.State._fields:
                a, b = np.asarray(getattr(found, name)), np.asarray(getattr(expected, name))
                if b.dtype.kind == "f":
                    np.testing.assert_allclose(a, b, rtol=1e-6, err_msg=name)
                else:
                    assert np.array_equal(a, b), name


@pytest.mark.parametrize("parameters", ACT_CONFIGS, ids=[str(i) for i in range(len(ACT_CONFIGS))])
def test_returns_healing_and_regrowth_over_arrays_are_the_models(parameters):
    """Phases 2 and 3 of every turn (``arrays.returns``, ``arrays.transitions``) give the
    state the model's give, with every random number the same ``u`` on both sides (the
    model draws only the numbers it uses, the arrays one per chance)."""
    rng = np.random.default_rng(ACT_CONFIGS.index(parameters) + 100)
    compared, regrown, returned = 0, 0, 0
    for seed in range(3):
        model = GAMES["stag_hunt"].model(**parameters, max_steps=40, collect_data=False,
                                         rng=seed)
        rules = arrays.rules_of(model)
        actions = model.random.random
        while model.running:
            model.advance_turn()
            u = float(rng.random())
            before = state_of(model)
            model.random.random = lambda: u
            model.update_removals()
            model.entity_transitions()
            model.random.random = actions
            k, slots = before.row.shape[1], before.queue_order.shape[1]
            found = arrays.returns(before, rules, model.turn, np.full((1, k), u),
                                   np.full((1, k), u))
            found = arrays.transitions(found, rules, model.turn, np.full((1, slots), u))
            assert_same(found, state_of(model), (seed, model.turn))
            compared += 1
            regrown += int(found.stags_on_map[0] + found.hares_on_map[0]
                           > before.stags_on_map[0] + before.hares_on_map[0])
            returned += int(found.agents_removed[0] < before.agents_removed[0])
            for agent in list(model.agents):
                if agent.cell is not None:
                    model.take_action(agent, agent.choose_action())
            model.record_metrics()
    assert compared == 3 * 40 and regrown
    if parameters.get("agent_health") == 1:   # one punish hit removes: some come back
        assert returned


HUNTERS = ("hare_hunter", "stag_hunter", "cooperator", "cooperator:2,stag_hunter:1",
           "hare_hunter:1,cooperator:2")


def hunter_batch(model, seat, u, xp=np):
    from types import SimpleNamespace
    return SimpleNamespace(xp=xp, model=model, rules=arrays.rules_of(model), t=model.turn,
                           current=state_of(model, xp), acting=xp.asarray([seat]),
                           draw=lambda shape: xp.full(shape, u))


@pytest.mark.parametrize("population", HUNTERS)
@pytest.mark.parametrize("parameters", ACT_CONFIGS, ids=[str(i) for i in range(len(ACT_CONFIGS))])
def test_the_hunters_decide_on_arrays_as_in_the_model(parameters, population):
    """Every decision of the scripted hunters, also taken by their ``batch_decide`` from the
    model's state with the same random number, is the same."""
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


PARITY = [("random", {}), ("hare_hunter", {}),
          ("random", {"attack_mode": "beam", "punish_cooldown": 0, "agent_health": 1,
                      "respawn_lag": 2, "num_agents_to_spawn": 3})]


def test_the_engine_plays_the_models_game_in_distribution():
    """The final value of every model column over whole episodes: the engine's mean (2,000
    episodes, numpy path) against the model's (200 episodes), a two-sample z test per column
    and configuration, Bonferroni-corrected to a family-wise false-failure rate of 1e-3
    (each sample's spread at least the pooled one, as in tests/test_batch_parity.py)."""
    from scipy import stats

    from dilemmas.models.stag_hunt.batch import StagHuntBatch

    columns = GAMES["stag_hunt"].model.model_reporters
    z = stats.norm.isf(1e-3 / (len(PARITY) * len(columns)) / 2)
    for population, parameters in PARITY:
        given = dict(parameters, population=population, max_steps=30)
        rows = StagHuntBatch(2000, np.random.default_rng(5), **given).run(compiled=False).last()
        finals = []
        for seed in range(200):
            model = GAMES["stag_hunt"].model(**given, rng=seed)
            model.run_model()
            finals.append(model.datacollector.get_model_vars_dataframe().iloc[-1])
        for column in columns:
            a = np.array([row[column] for row in finals], dtype=float)
            b = np.asarray(rows[column], dtype=float)
            a, b = a[~np.isnan(a)], b[~np.isnan(b)]
            if a.std() == b.std() == 0:
                assert a.mean() == b.mean(), (population, column)
                continue
            pooled = np.concatenate([a, b]).std(ddof=1)
            se = np.hypot(max(a.std(ddof=1), pooled) / np.sqrt(len(a)),
                          max(b.std(ddof=1), pooled) / np.sqrt(len(b)))
            assert abs(a.mean() - b.mean()) <= z * se, (population, parameters, column,
                                                        a.mean(), b.mean(), se)
