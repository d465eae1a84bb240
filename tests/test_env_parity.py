"""The array environments play the Mesa model's game: episodes of the functional interface
and of the vector environment (dilemmas/envs/functional.py, vector.py), with uniformly random
actions, agree in distribution with the PettingZoo environment's (the Mesa model,
dilemmas/envs/parallel.py) driven the same way: each agent's return, the episode's length and
the DataCollector's model columns at its end. The engine draws its own numbers, so the
episodes agree in distribution, not draw for draw.

Each statistic is compared by a z test on the two means (standard errors from the samples'
own spread): with about 45 comparisons in all, |z| < 4.5 fails a correct implementation with
probability below 1 in 2,000 (Bonferroni over a normal tail of 6.8e-6 each)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dilemmas

Z = 4.5
CASES = [
    ("bucket_brigade", {}, 400, ["night", "safe", "ruined", "lies"]),
    ("firefighting_graph", {"max_steps": 25}, 400, ["step", "total_fire", "burning_houses"]),
    ("state_punishment", {"max_steps": 15}, 200, ["collected", "punishment_level",
                                                  "cumulative_votes_up", "social_harm_generated"]),
    ("stag_hunt", {"max_steps": 15}, 200, ["stags_defeated", "hares_defeated", "attacks",
                                           "punishments"]),
]
ARRAY_EPISODES = 1024
#: The vector environment composes the same functions differently (a reset only on a step
#: where an episode ended, one program per decision): checked on the two games whose
#: programs compile quickly, where episodes end at different rounds.
VECTOR_TOO = ("bucket_brigade", "firefighting_graph")


def model_episodes(game, parameters, count, columns):
    """``count`` episodes of ``parallel_env`` with uniformly random actions: per episode,
    each agent's return, the rounds played and ``columns`` at the end."""
    env = dilemmas.parallel_env(game, **parameters, collect_data=False)
    rng = np.random.default_rng(7)
    actions = env.action_space(env.possible_agents[0]).n
    returns, lengths, ends = [], [], {column: [] for column in columns}
    for seed in range(count):
        env.reset(seed=seed)
        total = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            _, rewards, _, _, infos = env.step(
                {agent: int(rng.integers(actions)) for agent in env.agents})
            for agent, reward in rewards.items():
                total[agent] += reward
        returns.append([total[agent] for agent in env.possible_agents])
        lengths.append(env.model.steps)
        for column in columns:
            value = infos[env.possible_agents[0]]["round"][column]
            ends[column].append(np.nan if value is None else value)
    return np.array(returns), np.array(lengths, dtype=float), ends


def array_episodes(step_of, env, count, columns, steps):
    """The first episode of each of ``count`` rows, stepped by ``step_of`` (a function of
    the uniformly random actions) until every row has ended once."""
    agents = len(env.agents)
    ended = np.zeros(count, dtype=bool)
    returns, lengths = np.zeros((count, agents)), np.zeros(count)
    ends = {column: np.full(count, np.nan) for column in columns}
    rng = np.random.default_rng(11)
    actions = env.action_space(env.agents[0]).n
    for _ in range(steps):
        rewards, done, rounds, phase_last = step_of(rng.integers(actions, size=(count, agents)))
        live = ~ended
        returns[live] += rewards[live]
        finished = live & done
        lengths += live & phase_last
        for column in columns:
            ends[column][finished] = rounds[column][finished]
        ended |= done
        if ended.all():
            return returns, lengths, ends
    raise AssertionError("not every episode ended")


def functional_stepper(env, count):
    reset = jax.jit(jax.vmap(env.reset))
    step = jax.jit(jax.vmap(env.step))
    _, state = reset(jax.random.split(jax.random.key(3), count))
    keys = iter(jax.random.split(jax.random.key(4), 10_000))
    last = len(env.decisions) - 1

    def step_of(chosen):
        nonlocal state
        phase = np.asarray(state.phase)
        actions = {agent: jnp.asarray(chosen[:, j]) for j, agent in enumerate(env.agents)}
        _, state, rewards, dones, infos = step(jax.random.split(next(keys), count), state,
                                               actions)
        rounds = {name: np.asarray(value)[:, 0] for name, value in infos["round"].items()}
        return (np.stack([np.asarray(rewards[agent]) for agent in env.agents], axis=1),
                np.asarray(dones["__all__"]), rounds, phase == last)

    return step_of


def vector_stepper(game, parameters, count):
    env = dilemmas.vector_env(game, count, seed=5, **parameters)
    env.reset()
    agents = env.num_agents

    def step_of(chosen):
        phase = env.phase
        _, rewards, terminated, truncated, infos = env.step(chosen.reshape(-1))
        done = (terminated | truncated).reshape(count, agents)[:, 0]
        return (rewards.reshape(count, agents), done, {}, np.full(count, phase == len(
            env.functional.decisions) - 1))

    return env, step_of


def compare(name, model, arrays):
    """|z| of the two means (each a sample of episodes), NaN (undefined) values dropped."""
    model, arrays = np.asarray(model, float), np.asarray(arrays, float)
    model, arrays = model[~np.isnan(model)], arrays[~np.isnan(arrays)]
    spread = np.sqrt(model.var(ddof=1) / len(model) + arrays.var(ddof=1) / len(arrays))
    difference = arrays.mean() - model.mean()
    if spread == 0:
        assert difference == 0, name
        return 0.0
    z = difference / spread
    assert abs(z) < Z, f"{name}: model {model.mean():.4g}, arrays {arrays.mean():.4g}, z {z:.2f}"
    return z


@pytest.mark.parametrize("game, parameters, count, columns", CASES,
                         ids=[case[0] for case in CASES])
def test_the_array_environments_play_the_models_game(game, parameters, count, columns):
    returns, lengths, ends = model_episodes(game, parameters, count, columns)
    assert returns.std() > 0, "the episodes' returns vary: the test can tell them apart"
    env = dilemmas.functional_env(game, **parameters)
    steps = 2 * len(env.decisions) * int(lengths.max() + 10)
    functional = array_episodes(functional_stepper(env, ARRAY_EPISODES), env, ARRAY_EPISODES,
                                columns, steps)
    played = [("functional", functional)]
    if game in VECTOR_TOO:
        vector, step_of = vector_stepper(game, parameters, ARRAY_EPISODES)
        played.append(("vector", array_episodes(step_of, env, ARRAY_EPISODES, [], steps)))
    for label, (their_returns, their_lengths, their_ends) in played:
        for j, agent in enumerate(env.agents):
            compare(f"{label} {agent} return", returns[:, j], their_returns[:, j])
        compare(f"{label} rounds", lengths, their_lengths)
        for column in their_ends:
            compare(f"{label} {column}", ends[column], their_ends[column])
