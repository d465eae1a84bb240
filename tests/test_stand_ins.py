"""Stand-ins of the functional environment (dilemmas/envs/functional.py, "Stand-ins"): a
scripted behaviour standing in for an agent plays as it does in a seat of its own, an agent
nobody stands in for plays the actions given, and bad stand-ins are named.

Bucket Brigade (two decisions a round, a behaviour that keeps memory between them and draws
numbers) and State Punishment (agents acting in turn)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from dilemmas.envs.functional import functional_env

EPISODES, STEPS = 8, 24


def played(env, which=None):
    """Every agent's reward and the model reporters of ``STEPS`` steps of ``EPISODES``
    episodes, the agents' actions uniform from one key (the same for every env of as many
    agents), the stand-ins of ``which`` (one per stand-in agent) set at the start."""
    _, state = jax.vmap(env.reset)(jax.random.split(jax.random.key(1), EPISODES))
    if which is not None:
        state = jax.vmap(env.standing)(state, jnp.broadcast_to(jnp.asarray(which),
                                                               (EPISODES, len(which))))
    step = jax.jit(jax.vmap(env.step_env))
    count = env.action_spaces[env.agents[0]].n
    key, rewards, columns = jax.random.key(2), [], []
    for _ in range(STEPS):
        key, act, play = jax.random.split(key, 3)
        actions = jax.random.randint(act, (EPISODES, 4), 0, count)
        _, state, reward, _, infos = step(
            jax.random.split(play, EPISODES), state,
            {name: actions[:, j] for j, name in enumerate(env.agents)})
        rewards.append(np.stack([np.asarray(reward[name]) for name in env.agents], axis=1))
        columns.append({name: np.asarray(value[:, 0]) for name, value in infos["round"].items()})
    return np.stack(rewards), columns


@pytest.mark.parametrize("game, behaviour, agents, parameters", [
    ("bucket_brigade", "coordinator", 4, {}),
    ("state_punishment", "civic_voter", 3, {"max_steps": 12}),
], ids=["bucket_brigade", "state_punishment"])
def test_a_stand_in_plays_as_its_behaviour_in_a_seat_of_its_own(game, behaviour, agents,
                                                                parameters):
    """The behaviour standing in for the last agent in every episode gives, draw for draw,
    the episodes of the same population with the behaviour seated there (the same numbers
    drawn in the same order: its group comes after the agents' in both)."""
    native = functional_env(game, population=f"policy:{agents - 1},{behaviour}", **parameters)
    standing = functional_env(game, stand_ins=((behaviour,), (agents - 1,)),
                              population=f"policy:{agents}", **parameters)
    assert standing.num_agents == agents and native.num_agents == agents - 1
    rewards, columns = played(native)
    stood_rewards, stood_columns = played(standing, [0])
    np.testing.assert_array_equal(stood_rewards[..., :-1], rewards)
    for row, stood in zip(columns, stood_columns):
        assert row.keys() == stood.keys()
        for name in row:
            np.testing.assert_array_equal(stood[name], row[name], err_msg=name)
    assert np.abs(rewards).sum() > 0  # the episodes did something


def test_an_agent_nobody_stands_in_for_plays_the_actions_given():
    """``which`` -1: the agent's own actions stand (``always_rest`` draws no numbers, so the
    episodes are the plain environment's, draw for draw); 0: the behaviour's, which differ."""
    plain = functional_env("bucket_brigade", population="policy:4")
    env = functional_env("bucket_brigade", stand_ins=(("always_rest",), (2,)),
                         population="policy:4")
    rewards, _ = played(plain)
    np.testing.assert_array_equal(played(env, [-1])[0], rewards)
    np.testing.assert_array_equal(played(env)[0], rewards)  # a fresh episode: none
    assert not np.array_equal(played(env, [0])[0], rewards)


@pytest.mark.parametrize("stand_ins, message", [
    ((("nobody",), (1,)), "'nobody' is not a scripted behaviour of bucket_brigade that "
                          "decides on arrays; allowed: ['always_rest', 'always_work'"),
    ((("q_learning",), (1,)), "'q_learning' is not a scripted behaviour"),
    ((("policy",), (1,)), "'policy' is not a scripted behaviour"),
    ((("hero", "hero"), (1,)), "behaviours=['hero', 'hero'] must be distinct"),
    ((("hero",), (4,)), "agents=[4] must be distinct agents, from 0 to 3"),
    ((("hero",), ()), "agents=[] must be distinct agents"),
    (("hero",), "stand_ins=('hero',) must be (behaviours, agents)"),
], ids=["unknown", "learner", "policy", "twice", "agent", "no-agent", "shape"])
def test_a_bad_stand_in_is_named(stand_ins, message):
    with pytest.raises(ValueError) as error:
        functional_env("bucket_brigade", stand_ins=stand_ins, population="policy:4")
    assert message in str(error.value), str(error.value)
