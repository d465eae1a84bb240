"""State Punishment's scripted behaviours decide on arrays as in the Mesa model.

``greedy_forager`` and ``civic_voter`` have a ``batch_decide`` for the seat acting in each
episode of a batch (``dilemmas.agents.state_punishment``). Here every decision of a Mesa
episode is also taken by ``batch_decide`` from the model's own state (a batch of that one
episode), with the same random number for a random move (the Mesa behaviour's
``model.random.random()`` and the batch's ``draw`` both return it): the two must choose the
same action, over many states of several configurations (window and full view, composite
views, both action modes, taboo subsets, several worlds). The same ``batch_decide`` traced
with JAX arrays decides as with numpy.
"""

from types import SimpleNamespace

import numpy as np
import pytest

from dilemmas import GAMES
from dilemmas.agents.state_punishment import CivicVoterAgent, GreedyForagerAgent

CONFIGS = [
    {},
    {"action_mode": "composite"},
    {"full_view": True, "width": 7, "height": 6},
    {"composite_views": True, "vision_radius": 1},
    {"taboo": "BD", "punishment_magnitude": -4.0, "initial_punishment": 0.5},
    {"num_agents": 4, "num_worlds": 2, "vision_radius": 3, "spawn_prob": 0.2},
    {"initial_punishment": 0.0, "vote_step": 0.5, "initial_resources": 30},
    {"num_agents": 6, "width": 6, "height": 6, "initial_resources": 10, "vision_radius": 4},
]
POPULATIONS = ("greedy_forager", "civic_voter", "mixed")


def batch_of(model, seat: int, u: float, xp=np):
    """A batch of the model's one episode, the agent in ``seat`` acting, every draw ``u``."""
    state = type(model.state)(*(xp.asarray(field) for field in model.state))
    return SimpleNamespace(xp=xp, model=model, current=state, acting=xp.asarray([seat]),
                           draw=lambda shape: xp.full(shape, u))


def compared(model, rng) -> int:
    """Play the model to its end, each scripted decision also taken by ``batch_decide``;
    returns how many were compared."""
    decisions = 0
    for agent in model.seats:
        mesa_choose = agent.choose_action

        def choose(agent=agent, mesa_choose=mesa_choose):
            nonlocal decisions
            u = float(rng.random())
            model.random.random = lambda: u
            expected = mesa_choose()
            chosen = type(agent).batch_decide(batch_of(model, agent.seat, u), None, "act")
            assert model.action_names[int(chosen[0])] == expected, (agent.seat, model.turn)
            decisions += 1
            return expected

        agent.choose_action = choose
    model.run_model()
    return decisions


@pytest.mark.parametrize("population", POPULATIONS)
@pytest.mark.parametrize("parameters", CONFIGS, ids=[str(i) for i in range(len(CONFIGS))])
def test_batch_decisions_equal_mesa_decisions(parameters, population):
    rng = np.random.default_rng([5, CONFIGS.index(parameters), POPULATIONS.index(population)])
    if population == "mixed":
        k = parameters.get("num_agents", 3)
        population = f"civic_voter:1,greedy_forager:{k - 1}"
    decisions = 0
    for seed in range(3):
        model = GAMES["state_punishment"].model(**parameters, population=population,
                                                max_steps=40, collect_data=False, rng=seed)
        decisions += compared(model, rng)
    assert decisions >= 3 * 40


@pytest.mark.parametrize("behaviour", [GreedyForagerAgent, CivicVoterAgent])
def test_jax_decisions_equal_numpy_decisions(behaviour):
    """The same ``batch_decide`` traced by JAX (as the engine runs it) decides as with numpy
    on the same states (all of them games' states whose numbers float32 holds exactly
    enough: the default values, harms and vote steps)."""
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(11)
    for parameters in CONFIGS:
        model = GAMES["state_punishment"].model(**parameters, population=behaviour.behaviour,
                                                max_steps=30, collect_data=False, rng=3)
        decide = jax.jit(lambda state, seat, u: behaviour.batch_decide(
            SimpleNamespace(xp=jnp, model=model, current=state, acting=seat,
                            draw=lambda shape: jnp.full(shape, u)), None, "act"))
        while model.running:
            model.step()
            for agent in model.seats:
                u = float(np.float32(rng.random()))
                numpy = behaviour.batch_decide(batch_of(model, agent.seat, u), None, "act")
                state = type(model.state)(*(jnp.asarray(field) for field in model.state))
                traced = decide(state, jnp.asarray([agent.seat]), u)
                assert int(numpy[0]) == int(traced[0]), (parameters, model.turn, agent.seat)
