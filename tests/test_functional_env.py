"""The functional JAX interface (dilemmas/envs/functional.py): every observation, mask and
centralised state is what the game's PettingZoo interface makes of the episode's state
(docs/rules/<game>.md, "Learning agents"); actions, rewards and ends are the engine's rules;
``step`` resets an ended episode at once; everything is a pure function of its key."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from array_env_support import CONFIGS, IDS, Shadow, assert_observed, episode, random_allowed
from dilemmas import GAMES, parallel_env
from dilemmas.envs.functional import EnvParams, functional_env
from dilemmas.models.bucket_brigade.arrays import rules_end

EPISODES = 6


class Pieces:
    """The interface's pieces, mapped over ``EPISODES`` episodes and compiled."""

    def __init__(self, env):
        self.env = env
        self.start = jax.jit(jax.vmap(env.start))
        self.advance = [jax.jit(jax.vmap(functools.partial(env.advance, index)))
                        for index in range(len(env.decisions))]
        self.closing = jax.jit(jax.vmap(env.closing))
        self.opened = jax.jit(jax.vmap(env.opened))
        self.observed = [jax.jit(jax.vmap(lambda k, s, i=index: env.observed(k, s, i)))
                         for index in range(len(env.decisions))]
        self.world = jax.jit(jax.vmap(env.world_state))


def keys(seed, count=EPISODES):
    return jax.random.split(jax.random.key(seed), count)


#: The configurations tests/test_vector_env.py does not check there (the vector environment
#: plays these same functions; the centralised state is checked here, for every game).
OWN = [i for i in range(len(CONFIGS)) if i not in (0, 3, 4, 8, 10)]


@pytest.mark.parametrize("game, parameters", [CONFIGS[i] for i in OWN],
                         ids=[IDS[i] for i in OWN])
def test_every_observation_is_the_interfaces_of_the_episodes_state(game, parameters):
    env = functional_env(game, **parameters)
    single = parallel_env(game, **parameters)
    assert env.agents == single.possible_agents
    for name in env.agents:
        assert env.observation_space(name) == single.observation_space(name)
        assert env.action_space(name) == single.action_space(name)
    assert env.state_space == single.state_space
    pieces, rng = Pieces(env), np.random.default_rng(0)
    shadow = Shadow(env.game, parameters, env.seats)
    vectors, state = pieces.start(keys(1))
    signals = np.zeros((EPISODES, len(shadow.model.seats)), dtype=bool)
    last = signals.copy()
    ended, paid, rounds = np.zeros(EPISODES, dtype=bool), np.zeros((EPISODES, env.num_agents)), 0

    def check(vectors, state, index, t_of=None):
        phase = env.decisions[index]
        worlds = np.asarray(pieces.world(state))
        for e in range(EPISODES):
            arrays, t = episode(state.arrays, e), int(state.t[e])
            expected = shadow.observe(arrays, t, phase, signals[e], last[e])
            assert_observed(env.game, expected, vectors[e], state.mask[e])
            np.testing.assert_allclose(
                worlds[e], shadow.state(arrays, t, phase, signals[e], last[e]), rtol=1e-6,
                atol=0)
            assert int(state.phase[e]) == index

    check(vectors, state, 0)
    for step in range(60):
        index = int(state.phase[0])
        phase = env.decisions[index]
        chosen = random_allowed(np.asarray(state.mask), rng)
        if phase == "signal":
            last = np.asarray(state.arrays["signals"])[:, 0].copy()
        before = state
        after, rewards, done, by_rules, columns = pieces.advance[index](keys(step), state,
                                                                        chosen)
        paid += np.asarray(rewards)
        rewards_now = np.asarray(after.arrays["rewards" if game != "stag_hunt" and
                                              game != "state_punishment" else "reward"])
        np.testing.assert_allclose(paid, rewards_now[:, 0, env.seats], rtol=1e-5, atol=1e-4)
        if game == "bucket_brigade":  # the actions' decoding: a // 2, WORK if a even
            works = np.asarray(after.arrays["signals" if phase == "signal" else "working"])
            assert np.array_equal(works[:, 0, env.seats], chosen % 2 == 0)
            if phase == "act":
                assert np.array_equal(np.asarray(after.arrays["locations"])[:, 0, env.seats],
                                      chosen // 2)
            else:
                signals = works[:, 0].copy()
        elif game == "firefighting_graph":
            guarded = shadow.model.guarded[env.seats]
            assert np.array_equal(np.asarray(after.arrays["visited"])[:, 0, env.seats],
                                  guarded[np.arange(env.num_agents), chosen])
        if index + 1 < len(env.decisions):
            assert not np.asarray(done).any() and not np.asarray(rewards).any()
            vectors, state = pieces.observed[index + 1](keys(100 + step), after)
            check(vectors, state, index + 1)
            continue
        done, by_rules = np.asarray(done), np.asarray(by_rules)
        final = pieces.closing(keys(200 + step), after)
        for e in range(EPISODES):
            arrays, t = episode(after.arrays, e), int(after.t[e])
            expected = shadow.observe(arrays, t, None, signals[e], last[e])
            assert_observed(env.game, expected, final[e])
        if game == "bucket_brigade":
            t = np.asarray(after.t)
            houses = np.asarray(after.arrays["houses"])[:, 0]
            rules = np.array([rules_end(houses[e:e + 1], t[e], shadow.model.N_min,
                                        shadow.model.spec)[0] for e in range(EPISODES)])
            assert np.array_equal(by_rules, done & rules)
        assert np.array_equal(done & ~by_rules, done & (np.asarray(after.t) >= env.template.model.max_steps))
        ended |= done
        rounds += 1
        opened = pieces.opened(keys(300 + step), after)
        assert np.array_equal(np.asarray(opened.t), np.asarray(after.t) + 1)
        vectors, state = pieces.observed[0](keys(400 + step), opened)
        if phase == "act":
            last = signals.copy()
        check(vectors, state, 0)
        if ended.all():
            break
    assert ended.all(), "every episode ends within the steps played"


@functools.cache
def mapped(env, which: str):
    """``env.reset`` and ``env.<which>`` mapped over episodes, compiled once."""
    return jax.jit(jax.vmap(env.reset)), jax.jit(jax.vmap(getattr(env, which)))


def play(env, which: str, seed: int, steps: int, episodes: int = 4):
    """``steps`` steps of ``episodes`` episodes with random allowed actions: the reset's
    ``(observations, state)``, then each step's outputs."""
    reset, step = mapped(env, which)
    rng = np.random.default_rng(seed)
    observations, state = reset(keys(seed, episodes))
    out = [(observations, state)]
    for i in range(steps):
        masks = env.get_avail_actions(state)
        actions = {name: random_allowed(np.asarray(masks[name]), rng) for name in env.agents}
        result = step(keys(seed * 1000 + i, episodes), state, actions)
        state = result[1]
        out.append(result)
    return out


def test_step_resets_an_ended_episode_at_once_and_step_env_does_not():
    env = functional_env("bucket_brigade", max_steps=3)
    record = play(env, "step", 3, 13)
    states = [r[1] for r in record]
    assert (np.asarray(states[0].t) == 1).all()
    ends = 0
    for before, result in zip(states, record[1:]):
        observations, state, rewards, dones, infos = result
        done = np.asarray(dones["__all__"])
        for name in env.agents:
            assert np.array_equal(np.asarray(dones[name]), done)
        # every info leaf one value per agent (JaxMARL's IPPO reshapes them so), all alike
        for leaf in jax.tree_util.tree_leaves(infos):
            leaf = np.asarray(leaf)
            assert leaf.shape == (len(done), env.num_agents)
            assert np.array_equal(leaf, np.broadcast_to(leaf[:, :1], leaf.shape),
                                  equal_nan=leaf.dtype.kind == "f")
        terminated, truncated = np.asarray(infos["terminated"]), np.asarray(infos["truncated"])
        assert np.array_equal((terminated | truncated)[:, 0], done)
        assert not (terminated & truncated).any()
        night = np.asarray(infos["round"]["night"])[:, 0]
        # an ended episode's columns are its last night's; the fresh one opens night 1
        assert np.array_equal(night, np.asarray(before.t))
        assert (np.asarray(state.t)[done] == 1).all() and (np.asarray(state.phase)[done] == 0).all()
        assert (np.asarray(observations["agent_0"])[done, -1] == np.float32(1 / 3)).all()
        ends += done.sum()
    assert ends == 4 * 2, "episodes of 3 nights (6 steps) end twice in 13 steps"
    kept = play(env, "step_env", 3, 6)
    assert np.asarray(kept[-1][3]["__all__"]).all()
    assert (np.asarray(kept[-1][1].t) == 4).all(), "step_env leaves the ended episode be"
    final = np.asarray(kept[-1][0]["agent_0"])
    assert (final[:, -1] == np.float32(1.0)).all(), "step_env: the town as it ended, night 3"


#: tests/test_env_parity.py's parameters: their programs are compiled once for both files.
REPLAYED = {"bucket_brigade": {}, "firefighting_graph": {"max_steps": 25},
            "state_punishment": {"max_steps": 15}, "stag_hunt": {"max_steps": 15}}


@pytest.mark.parametrize("game", list(REPLAYED))
def test_the_same_key_replays_the_same_steps_and_another_key_does_not(game):
    env = functional_env(game, **REPLAYED[game])
    # the programs of tests/test_env_parity.py's, already compiled (1,024 episodes)
    first, again, other = (play(env, "step", seed, 7, 1024) for seed in (1, 1, 2))
    flat = [[np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(r)]
            for r in (first, again, other)]

    def same(a, b):  # undefined columns (NaN) equal
        return all(np.array_equal(x, y, equal_nan=x.dtype.kind == "f") for x, y in zip(a, b))

    assert same(flat[0], flat[1]) and not same(flat[0], flat[2])


def test_a_mapped_step_is_the_step_of_each_episode():
    env = functional_env("firefighting_graph", max_steps=4)
    observations, state = jax.vmap(env.reset)(keys(0, 3))
    actions = {name: jnp.array([0, 1, 1]) for name in env.agents}
    mapped = jax.vmap(env.step)(keys(9, 3), state, actions)
    for e in range(3):
        one = env.step(keys(9, 3)[e], jax.tree_util.tree_map(lambda x: x[e], state),
                       {name: actions[name][e] for name in env.agents})
        for a, b in zip(jax.tree_util.tree_leaves(one), jax.tree_util.tree_leaves(mapped)):
            assert np.array_equal(np.asarray(a), np.asarray(b)[e])


def test_params_are_static_and_pick_the_game_parameters():
    env = functional_env("firefighting_graph")
    assert env.default_params == EnvParams("firefighting_graph", ())
    assert hash(env.params_of(max_steps=3)) == hash(env.params_of(max_steps=3))
    short = env.params_of(max_steps=2)
    _, state = env.reset(jax.random.key(0), short)
    ends = []
    for i in range(2):
        _, state, _, dones, infos = env.step(jax.random.key(i), state,
                                             dict.fromkeys(env.agents, 0), short)
        ends.append(bool(dones["__all__"]))
    assert ends == [False, True] or bool(infos["terminated"][0]), "max_steps=2 ends it"
    with pytest.raises(ValueError, match="params=.*must be None or an EnvParams of "
                                         "'firefighting_graph'"):
        env.reset(jax.random.key(0), EnvParams("bucket_brigade", ()))


def test_games_and_populations_it_cannot_play_are_refused(monkeypatch):
    with pytest.raises(ValueError, match="is not a registered game"):
        functional_env("chess")
    with pytest.raises(ValueError, match=r"\['q_learning'\] cannot decide on arrays"):
        functional_env("bucket_brigade", population="policy:2,q_learning:2")
    with pytest.raises(ValueError, match="seats no 'policy' behaviour"):
        functional_env("firefighting_graph", population="random")
    with pytest.raises(ValueError, match="rng= is the environment's own"):
        functional_env("bucket_brigade", rng=1)
    with pytest.raises(ValueError, match="wall_density=0.2: random maps with interior walls"):
        functional_env("stag_hunt", wall_density=0.2)
    monkeypatch.setitem(GAMES["stag_hunt"].__dict__, "batch", None)
    with pytest.raises(ValueError, match="has no batch engine"):
        functional_env("stag_hunt")


def types(tree) -> list:
    return [(leaf.shape, leaf.dtype, leaf.weak_type) for leaf in jax.tree_util.tree_leaves(tree)]


@pytest.mark.parametrize("game, parameters", CONFIGS, ids=IDS)
def test_a_stepped_state_has_the_types_of_a_fresh_one(game, parameters):
    """``reset``'s state and ``step``'s have the same shapes, dtypes and weak types (traced
    only), so that a ``jit`` given the one, then the other, does not compile again."""
    env = functional_env(game, **parameters)
    _, fresh = jax.eval_shape(jax.vmap(env.reset), keys(0))
    actions = {name: jax.ShapeDtypeStruct((EPISODES,), jnp.int32) for name in env.agents}
    state = fresh
    for seed in range(2 * len(env.decisions)):
        _, state, *_ = jax.eval_shape(jax.vmap(env.step), keys(seed + 1), state, actions)
        assert types(state) == types(fresh)


def test_a_jitted_loop_compiles_once_on_resets_state_and_its_own():
    """``run(run(reset(...)))`` of a ``jit``ted ``lax.scan`` of steps compiles ``run`` once
    (benchmarks/env.py's loop; the Firefighting Graph's fresh state was weakly typed, the
    test above checks every game's)."""
    env = functional_env("firefighting_graph", max_steps=12)

    def one(state, key):
        masks = env.get_avail_actions(state)
        actions = {name: jnp.argmax(masks[name], axis=-1) for name in env.agents}
        _, state, rewards, _, _ = jax.vmap(env.step)(jax.random.split(key, 2), state, actions)
        return state, sum(rewards.values())

    @jax.jit
    def run(state, key):
        return jax.lax.scan(one, state, jax.random.split(key, 4))

    _, state = jax.vmap(env.reset)(keys(0, 2))
    for seed in range(3):
        state, _ = run(state, jax.random.key(seed))
    assert run._cache_size() == 1


# --- Actions: checked as parallel_env checks them, where JAX allows ------------------------

@pytest.fixture(scope="module")
def small():
    env = functional_env("firefighting_graph", max_steps=4)
    return env, env.reset(jax.random.key(0))[1], jax.random.key(1)


@pytest.mark.parametrize("action, message", [
    (2, "agent_0's action 2 is invalid: must be an integer from 0 to 1"),
    (-1, "agent_0's action -1 is invalid: must be an integer from 0 to 1"),
    (jnp.array([7]), "agent_0's action 7 is invalid: must be an integer from 0 to 1"),
    (1.0, "agent_0's action 1.0 is invalid: must be an integer from 0 to 1, not of dtype "
          "float64"),
    (float("nan"), "agent_0's action nan is invalid: must be an integer from 0 to 1, not of "
                   "dtype float64"),
    (True, "agent_0's action True is invalid: must be an integer from 0 to 1, not of dtype "
           "bool"),
    (np.bool_(False), "agent_0's action np.False_ is invalid: must be an integer from 0 to 1, "
                      "not of dtype bool"),
    (np.array([0, 1]), "agent_0's action array([0, 1]) is invalid: must be one integer, of "
                       "shape () or (1,), not (2,)")])
def test_a_malformed_or_out_of_range_action_is_refused_as_parallel_env_refuses_it(
        small, action, message):
    env, state, key = small
    actions = {name: 0 for name in env.agents}
    for step in (env.step, env.step_env):
        with pytest.raises(ValueError) as error:
            step(key, state, {**actions, "agent_0": action})
        assert str(error.value) == message
    if np.ndim(action) == 0 and not np.issubdtype(np.result_type(action), np.floating):
        pz = parallel_env("firefighting_graph", max_steps=4)
        pz.reset(seed=0)
        with pytest.raises(ValueError, match=r"^agent_0's action .* is invalid: must be an "
                                             "integer from 0 to 1$"):
            pz.step({**actions, "agent_0": action})


@pytest.mark.parametrize("change", ["unknown", "missing", "not a dict"])
def test_actions_for_other_agents_than_the_envs_are_refused(small, change):
    env, state, key = small
    actions = {name: 0 for name in env.agents}
    given = {"unknown": {**actions, "agent_99": 1}, "missing": {"agent_0": 0},
             "not a dict": [0] * env.num_agents}[change]
    listed = sorted(given, key=str) if isinstance(given, dict) else given
    with pytest.raises(ValueError) as error:
        env.step(key, state, given)
    assert str(error.value) == (f"step() needs a dict of one action for each of {env.agents}; "
                                f"given: {listed!r}")


def test_integer_actions_of_shape_one_play_as_scalars(small):
    env, state, key = small
    scalar = env.step(key, state, {name: 1 for name in env.agents})
    shaped = env.step(key, state, {name: jnp.array([1]) for name in env.agents})
    for a, b in zip(jax.tree_util.tree_leaves(scalar), jax.tree_util.tree_leaves(shaped)):
        assert np.array_equal(np.asarray(a), np.asarray(b))


def test_traced_actions_are_checked_for_their_type_and_clipped_into_range(small):
    env, state, key = small
    jitted = jax.jit(env.step)
    with pytest.raises(ValueError, match=r"^agent_0's action .* must be an integer from 0 to "
                                         "1, not of dtype float32"):
        jitted(key, state, {name: jnp.float32(1) for name in env.agents})
    with pytest.raises(ValueError, match=r"^step\(\) needs a dict of one action for each"):
        jitted(key, state, {name: jnp.int32(1) for name in env.agents[1:]})
    # inside jit no error can be raised: -1 plays 0 and 99 the last action, 1
    for inside, outside in ((-1, 0), (99, 1)):
        clipped = jitted(key, state, {name: jnp.int32(inside) for name in env.agents})
        played = env.step(key, state, {name: outside for name in env.agents})
        for a, b in zip(jax.tree_util.tree_leaves(clipped), jax.tree_util.tree_leaves(played)):
            assert np.array_equal(np.asarray(a), np.asarray(b))
