"""The third-party routes of docs/how-to/environments.md, run as that page writes them:
SuperSuit's chain into a Gymnasium vector environment (each row's episode the PettingZoo
environment's, step for step)."""

import re
import types
from pathlib import Path

import numpy as np
import pytest

import dilemmas

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "how-to" / "environments.md").read_text()
FOUR = ["bucket_brigade", "firefighting_graph", "state_punishment", "stag_hunt"]


def section_code(title: str) -> str:
    """The first Python block of the page's section ``title``."""
    section = PAGE.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
    return re.search(r"^```python\n(.*?)^```", section, re.S | re.M).group(1)


def documented_chain(game: str, **parameters):
    """``(vector, copies)``: the page's SuperSuit chain, its lines as written, with
    ``dilemmas.parallel_env`` making ``game`` with ``parameters`` whatever game it names."""
    code = section_code("SuperSuit, into Stable-Baselines3 or CleanRL")
    chain = code.split("observations, infos = vector.reset")[0]
    assert "black_death" not in chain
    stand_in = types.SimpleNamespace(
        parallel_env=lambda name, **more: dilemmas.parallel_env(game, **parameters, **more))
    namespace = {}
    exec(chain.replace("import dilemmas\n", ""), {"dilemmas": stand_in}, namespace)
    vector = namespace["vector"]
    return vector, vector.num_envs // len(namespace["env"].possible_agents)


@pytest.mark.parametrize("game", FOUR)
def test_the_documented_supersuit_chain_plays_the_pettingzoo_episodes_step_for_step(game):
    """Copy ``i`` of the chain, reset with ``seed + i``, is a PettingZoo environment reset
    with that seed and reset unseeded after each episode (SuperSuit resets each copy as it
    ends): the same observations, rewards and flags at every step, so episodes of the same
    length (no dummy last step)."""
    vector, copies = documented_chain(game, max_steps=3)
    references = [dilemmas.parallel_env(game, max_steps=3) for _ in range(copies)]
    agents = len(references[0].possible_agents)
    observations, _ = vector.reset(seed=10)
    expected = [env.reset(seed=10 + i)[0] for i, env in enumerate(references)]
    count, rng = vector.action_space.n, np.random.default_rng(0)
    lengths, reference_lengths = [], []
    steps = np.zeros(copies, dtype=int)
    per_round = 2 if game == "bucket_brigade" else 1  # Bucket Brigade's night: 2 decisions
    for _ in range(2 * 3 * per_round):  # two episodes of 3 rounds
        for i, env in enumerate(references):
            rows = observations[i * agents:(i + 1) * agents]
            assert np.array_equal(rows, np.stack([expected[i][a] for a in env.possible_agents]))
        actions = rng.integers(0, count, vector.num_envs)
        observations, rewards, terminated, truncated, _ = vector.step(actions)
        steps += 1
        for i, env in enumerate(references):
            part = slice(i * agents, (i + 1) * agents)
            chosen = dict(zip(env.possible_agents, actions[part].tolist()))
            expected[i], paid, ends, cuts, _ = env.step(chosen)
            assert np.allclose(rewards[part], [paid[a] for a in env.possible_agents])
            assert terminated[part].tolist() == [ends[a] for a in env.possible_agents]
            assert truncated[part].tolist() == [cuts[a] for a in env.possible_agents]
            if not env.agents:
                reference_lengths.append(int(steps[i]))
                expected[i], _ = env.reset()
            if (terminated[part] | truncated[part]).all():
                lengths.append(int(steps[i]))
                steps[i] = 0
    assert lengths == reference_lengths and set(lengths) == {3 * per_round}
    assert len(lengths) == 2 * copies


def test_the_games_are_in_pettingzoos_registry():
    """``import dilemmas.envs`` registers every game, parallel and AEC (PettingZoo 1.27)."""
    pettingzoo = pytest.importorskip("pettingzoo")
    if not hasattr(pettingzoo, "register"):
        pytest.skip(f"PettingZoo {pettingzoo.__version__} has no registry")
    import dilemmas.envs  # noqa: F401

    for game in FOUR:
        env = pettingzoo.make("parallel", f"dilemmas/{game}-v0", max_steps=2)
        same = dilemmas.parallel_env(game, max_steps=2)
        assert env.metadata["name"] == f"dilemmas_{game}"
        assert env.possible_agents == same.possible_agents
        observations, _ = env.reset(seed=3)
        expected, _ = same.reset(seed=3)
        assert all(np.array_equal(observations[a], expected[a]) for a in expected)
        aec = pettingzoo.make("aec", f"dilemmas/{game}", max_cycles=1)
        assert isinstance(aec, pettingzoo.AECEnv) and aec.unwrapped.max_cycles == 1
        assert type(aec.unwrapped) is type(same)


def test_sb3_vec_env_without_stable_baselines3_says_what_to_install():
    import importlib.util

    if importlib.util.find_spec("stable_baselines3") is not None:
        pytest.skip("Stable-Baselines3 is installed here (tests/test_sb3_route.py runs it)")
    with pytest.raises(ImportError, match=r"^sb3_vec_env needs Stable-Baselines3, which is not "
                                          r"installed: pip install stable-baselines3$"):
        dilemmas.sb3_vec_env("stag_hunt", 2)
