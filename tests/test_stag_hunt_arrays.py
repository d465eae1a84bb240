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
