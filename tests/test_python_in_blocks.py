"""Behaviours that decide in Python play in blocks of the batch engine
(``dilemmas.models.episode_models``).

* Exactly as a lone model: a block of one episode whose generator is the lone model's
  (``default_rng(seed)``, the stream ``model.rng`` draws the rules from) and whose episode
  model is seeded alike plays a population of Python behaviours draw for draw as the Mesa
  model does -- every built-in's subclass that changes a decision and calls ``super()``, a
  fresh behaviour drawing from ``self.model.random``, one reading other agents, one editing
  the state by hand (a behaviour drawing from ``self.model.rng`` shares that stream with the
  lone model's rules, but not with a block's: it is checked in distribution) -- in every game whose model starts its episode as the engine does
  (Bucket Brigade, State Punishment, Stag Hunt; the Firefighting Graph's model draws its
  first fire levels itself, so it is checked in distribution only).
* In distribution: in every game a block of mixed Python and array behaviours agrees with
  one model at a time on every model column at the end of an episode, within 4 standard
  errors of the difference (a false alarm about 6e-5 per column).
* Reproducible and registered once: the same study gives the same rows serially, in the
  local pool and on Dask, with a behaviour defined inside the test function; a behaviour
  that cannot be sent is refused in one line naming it.
* Refused, naming the cause: a ``policy`` seat, a learner, a behaviour that declares
  ``one_model``, a model subclass (``dilemmas.batch_run(..., engine="batch")``).
"""

import re
import threading
from pathlib import Path

import numpy as np
import pytest

import dilemmas
from dilemmas import GAMES
from dilemmas.analysis.studies.results import load
from dilemmas.analysis.studies.runner import run_study
from dilemmas.analysis.studies.study import Study
from dilemmas.models.batch import decides_on_arrays, why_off_engine
from tests.test_own_behaviours import overriding

EXACT = ("bucket_brigade", "state_punishment", "stag_hunt")


def same(a, b) -> bool:
    """Two columns equal value by value (None and NaN both missing)."""
    missing = lambda x: x is None or x != x  # noqa: E731
    a, b = list(a), list(b)
    return len(a) == len(b) and all(x == y or missing(x) and missing(y) for x, y in zip(a, b))


def assert_as_lone_model(game: str, population: str, seeds=range(3)):
    entry = GAMES[game]
    for seed in seeds:
        rows = entry.batch(1, np.random.default_rng(seed), seeds=[seed], agents=True,
                           population=population).run()
        model = entry.model(population=population, rng=seed)
        model.run_model()
        frame = model.datacollector.get_model_vars_dataframe()
        agents = model.datacollector.get_agent_vars_dataframe()
        for name, values in rows.model.items():
            assert same(values, frame[name]), (game, population, seed, name)
        for name, values in rows.agent.items():
            if name in agents:
                assert same(values, agents[name]), (game, population, seed, name)


def subclasses(games=EXACT):
    for game in games:
        for name, behaviour in GAMES[game].behaviours.items():
            if decides_on_arrays(behaviour):
                for method in behaviour.decisions:
                    yield pytest.param(game, name, method, id=f"{game}-{name}-{method}")


@pytest.mark.parametrize("game,name,method", list(subclasses()))
def test_a_subclass_calling_super_plays_in_a_block_as_on_the_model(game, name, method,
                                                                    monkeypatch):
    entry = GAMES[game]
    own = overriding(game, entry.behaviours[name], method)
    monkeypatch.setitem(entry.behaviours, own.behaviour, own)
    assert_as_lone_model(game, own.behaviour)


def fresh_behaviours():
    """Python behaviours written from scratch, by game: one drawing from the model's
    generators, one reading the other agents, one editing the state by hand."""
    from dilemmas.agents.bucket_brigade import BucketBrigadeAgent
    from dilemmas.agents.stag_hunt import StagHuntAgent
    from dilemmas.agents.state_punishment import StatePunishmentAgent
    from dilemmas.models.bucket_brigade.rules import BURNING, REST, SAFE, WORK
    from dilemmas.models.stag_hunt.rules import NOOP

    class Coin(BucketBrigadeAgent):
        behaviour = "coin"

        def choose_signal(self):
            return WORK if self.model.random.random() < 0.5 else REST

        def choose_action(self):
            house = self.model.random.randrange(self.model.num_houses)
            return house, self.model.observation.signals[self.seat]

    class RulesCoin(Coin):
        """Draws from ``model.rng``, the stream the lone model's rules draw from too (so it
        agrees with the lone model in distribution, not draw for draw)."""
        behaviour = "rules_coin"

        def choose_signal(self):
            return WORK if self.model.rng.random() < 0.5 else REST

    class Follower(BucketBrigadeAgent):
        """Works where seat 0 stands when seat 0 signalled WORK tonight."""
        behaviour = "follower"

        def choose_signal(self):
            return WORK if self.model.seats[0].signal == WORK else REST

        def choose_action(self):
            leader = self.model.observation
            work = leader.signals[0] == WORK
            return (leader.locations[0], WORK) if work else (leader.locations[self.seat], REST)

    class Mender(BucketBrigadeAgent):
        """Puts out its first own burning house by hand, then rests."""
        behaviour = "mender"

        def choose_signal(self):
            return REST

        def choose_action(self):
            houses = self.model.houses.tolist()
            burning = [h for h in self.owned if houses[h] == BURNING]
            if burning:
                houses[burning[0]] = SAFE
                self.model.houses = houses
            return self.house, REST

    class Wanderer(StatePunishmentAgent):
        behaviour = "wanderer"

        def choose_action(self):
            return self.model.random.choice(self.model.action_names)

    class Jumper(StatePunishmentAgent):
        """Moves itself by hand to a random cell of its world's grid, then does nothing."""
        behaviour = "jumper"

        def choose_action(self):
            grid = self.model.grids[self.world]
            cell = self.model.random.choice(list(grid.all_cells))
            if not cell.wall and cell.is_empty:
                self.cell = cell
            return "noop"

    class Shuffler(StagHuntAgent):
        behaviour = "shuffler"

        def choose_action(self):
            others = [a for a in self.model.seats if a is not self and a.cell is not None]
            return NOOP if not others else self.model.random.randrange(9)

    class Planter(StagHuntAgent):
        """Plants a hare by hand on a free open cell, then does nothing."""
        behaviour = "planter"

        def choose_action(self):
            row = self.model.random.randrange(self.model.height)
            col = self.model.random.randrange(self.model.width)
            if self.model.is_free((row, col)):
                self.model.resource_kinds[row, col] = 2
                self.model.resource_health[row, col] = self.model.hare_health
            return NOOP

    return {"bucket_brigade": [Coin, Follower, Mender, RulesCoin],
            "state_punishment": [Wanderer, Jumper],
            "stag_hunt": [Shuffler, Planter]}


@pytest.mark.parametrize("game", EXACT)
def test_fresh_behaviours_play_in_a_block_as_on_the_model(game, monkeypatch):
    entry = GAMES[game]
    behaviours = [cls for cls in fresh_behaviours()[game] if cls.behaviour != "rules_coin"]
    for cls in behaviours:
        monkeypatch.setitem(entry.behaviours, cls.behaviour, cls)
        assert_as_lone_model(game, cls.behaviour)
    mixed = ",".join(f"{cls.behaviour}:1" for cls in behaviours)
    seats = {"bucket_brigade": 4, "state_punishment": 3, "stag_hunt": 3}[game]
    mixed += f",{behaviours[0].behaviour}:{seats - len(behaviours)}" \
        if seats > len(behaviours) else ""
    assert_as_lone_model(game, mixed)


def mixed_populations():
    """A Python behaviour beside an array one, by game."""
    from dilemmas.agents.firefighting_graph import BeliefTrackerAgent, FirefighterAgent
    from dilemmas.agents.stag_hunt import HareHunterAgent
    from dilemmas.models.stag_hunt.rules import NOOP

    class LazyHareHunter(HareHunterAgent):  # docs/how-to/add-a-behaviour.md
        behaviour = "lazy_hare_hunter"

        def choose_action(self):
            return NOOP if self.model.turn % 2 else super().choose_action()

    class Doubter(BeliefTrackerAgent):
        behaviour = "doubter"

        def choose_action(self):
            chosen = super().choose_action()
            return chosen if self.model.random.random() < 0.7 else 1 - chosen

    class Dampener(FirefighterAgent):
        """Puts out the fire of its first house by hand (in place, on the fire layer), then
        goes to its second."""
        behaviour = "dampener"

        def choose_action(self):
            first = int(self.model.guarded[self.seat, 0])
            row, col = np.unravel_index(first, self.model.levels.shape)
            self.model.levels[row, col] = 0
            return 1

    coin, follower, _, rules_coin = fresh_behaviours()["bucket_brigade"]
    wanderer, _ = fresh_behaviours()["state_punishment"]
    return {"bucket_brigade": ([coin, follower, rules_coin],
                               "coin:1,follower:1,rules_coin:1,free_rider:1"),
            "state_punishment": ([wanderer], "wanderer:1,greedy_forager:2"),
            "stag_hunt": ([LazyHareHunter], "lazy_hare_hunter:2,stag_hunter:1"),
            "firefighting_graph": ([Doubter, Dampener], "doubter:3,dampener:3,random:4")}


@pytest.mark.parametrize("game", ("bucket_brigade", "state_punishment", "stag_hunt",
                                  "firefighting_graph"))
def test_a_block_agrees_with_one_model_at_a_time_on_every_column(game, monkeypatch):
    entry = GAMES[game]
    behaviours, population = mixed_populations()[game]
    for cls in behaviours:
        monkeypatch.setitem(entry.behaviours, cls.behaviour, cls)
    episodes = 150
    short = {"max_steps": 40} if game in ("state_punishment", "stag_hunt") else {}
    block = entry.batch(episodes, np.random.default_rng(5), population=population,
                        seeds=range(10**6, 10**6 + episodes), **short).run().last()
    lone = {name: [] for name in block}
    for seed in range(episodes):
        model = entry.model(population=population, rng=seed, **short)
        model.run_model()
        last = model.datacollector.get_model_vars_dataframe().iloc[-1]
        for name in lone:
            lone[name].append(last[name])
    for name, values in block.items():
        a = np.asarray(values, float)
        b = np.asarray(lone[name], float)
        if np.isnan(a).all() and np.isnan(b).all():
            continue
        se = np.sqrt(np.nanvar(a, ddof=1) / len(a) + np.nanvar(b, ddof=1) / len(b))
        assert abs(np.nanmean(a) - np.nanmean(b)) <= 4 * se + 1e-12, (game, name)


def test_each_episode_draws_from_its_own_runs_generator(monkeypatch):
    """The first number a Python behaviour draws in an episode of a block is the first
    number of ``random.Random(seed)`` of its run, wherever the run sits in the block."""
    from dilemmas.agents.bucket_brigade import BucketBrigadeAgent
    from dilemmas.models.bucket_brigade.rules import REST

    drawn = {}

    class Recorder(BucketBrigadeAgent):
        behaviour = "recorder"

        def choose_signal(self):
            value = self.model.random.random()
            drawn.setdefault(self.model.seed, value)
            return REST

        def choose_action(self):
            return self.house, REST

    entry = GAMES["bucket_brigade"]
    monkeypatch.setitem(entry.behaviours, "recorder", Recorder)
    seeds = [11, 7, 30, 2]
    for order in (seeds, seeds[::-1]):
        drawn.clear()
        entry.batch(4, np.random.default_rng(order), seeds=order,
                    population="recorder:1,free_rider:3").run()
        for seed in seeds:
            model = entry.model(population="recorder:1,free_rider:3", rng=seed)
            first = drawn[seed]
            drawn.pop(seed)
            model.step()
            assert drawn[seed] == first


def home_guard():
    """docs/how-to/add-a-behaviour.md's HomeGuard (its first code cell), defined inside a
    function: a class no worker process can import."""
    page = (Path(__file__).parents[1] / "docs/how-to/add-a-behaviour.md").read_text()
    namespace = {"__name__": "defined_in_a_function"}
    exec(re.findall(r"```\{code-cell\}\n(.*?)```", page, re.S)[0], namespace)
    return namespace["HomeGuard"]


def test_a_behaviour_registered_in_a_function_plays_in_every_backend(tmp_path, monkeypatch):
    entry = GAMES["bucket_brigade"]
    monkeypatch.setitem(entry.behaviours, "home_guard", home_guard())
    study = Study(game="bucket_brigade", name="guards", replicates=12,
                  fixed={"population": "home_guard:2,free_rider:2"}, sweep={"beta": [0.1, 0.3]})
    assert study.batch and study.in_python == ["home_guard (no batch_decide)"]
    frames = []
    for backend, workers in (("serial", 1), ("local", 2), ("dask", 1)):
        report = run_study(study, tmp_path / backend, backend=backend, workers=workers,
                           progress=False)
        assert report.failed == [] and report.played == 24, backend
        frame = load(tmp_path / backend / "guards")
        frames.append(frame.sort_values(["run_id", "Step"]).reset_index(drop=True))
    for frame in frames[1:]:
        assert frame.equals(frames[0])
    rows = dilemmas.batch_run(entry.model, {"population": "home_guard:2,free_rider:2"},
                              number_processes=2, rng=range(6), display_progress=False)
    assert {row["RunId"] for row in rows} == set(range(6))


def test_a_behaviour_that_cannot_be_sent_is_refused_naming_it(tmp_path, monkeypatch):
    guard = home_guard()
    unsendable = type("Locked", (guard,), {"behaviour": "locked", "lock": threading.Lock()})
    entry = GAMES["bucket_brigade"]
    monkeypatch.setitem(entry.behaviours, "locked", unsendable)
    study = Study(game="bucket_brigade", name="locked", replicates=2,
                  fixed={"population": "locked"})
    with pytest.raises(ValueError, match="behaviour 'locked' of bucket_brigade .*cannot be "
                                         "sent to the worker processes"):
        run_study(study, tmp_path, backend="local", workers=1, progress=False)
    assert run_study(study, tmp_path / "serial", backend="serial", progress=False).played == 2


def test_what_cannot_play_in_blocks_is_refused_naming_its_cause(monkeypatch):
    entry = GAMES["bucket_brigade"]
    guard = home_guard()
    shared = type("Shared", (guard,), {"behaviour": "shared", "one_model": True})
    monkeypatch.setitem(entry.behaviours, "shared", shared)
    causes = {"shared": "declares one_model = True",
              "q_learning": "learns while it plays",
              "policy": "plays the model's policy"}
    for behaviour, cause in causes.items():
        extra = {"policy": lambda observation: 0} if behaviour == "policy" else {}
        model = entry.model(population=behaviour, rng=0, collect_data=False, **extra)
        assert cause in why_off_engine(model)
        if behaviour != "policy":
            with pytest.raises(ValueError, match=behaviour):
                entry.batch(2, np.random.default_rng(0), population=behaviour)
            study = Study(game="bucket_brigade", name="off", fixed={"population": behaviour})
            assert not study.batch and cause in study.off_engine

    class Slower(entry.model):
        def spread(self):
            super().spread()

    with pytest.raises(ValueError, match="not a registered game's model"):
        dilemmas.batch_run(Slower, {"population": "home_guard"}, rng=[0], engine="batch",
                           display_progress=False)


def test_a_compiled_run_with_python_seats_says_so_and_plays_on_numpy(monkeypatch):
    entry = GAMES["bucket_brigade"]
    monkeypatch.setitem(entry.behaviours, "home_guard", home_guard())
    engine = entry.batch(3, np.random.default_rng(0), seeds=[1, 2, 3], population="home_guard")
    with pytest.warns(UserWarning, match="home_guard .* decide in Python: the block plays on "
                                         "numpy"):
        compiled = engine.run(compiled=True)
    again = entry.batch(3, np.random.default_rng(0), seeds=[1, 2, 3],
                        population="home_guard").run()
    for name, values in again.model.items():
        assert same(values, compiled.model[name])

