"""The scenarios, read from ``catalogue/<game>.toml`` (docs/scenarios.md).

A game's catalogue file names its *substrate* (the parameters every scenario starts from),
the training of its learned baselines, its *bots* (trained policies shipped in ``bots/``,
played as background co-players) and its scenarios. A scenario is the substrate (with any
``parameters`` of its own), its first ``focal`` seats played by the policy under test, the
rest by its ``background`` (a population of the game's behaviours and bots), ``episodes``
episodes, scored by the focal and background per-capita returns and the game's ``metrics``
(episode statistics).

Its id, ``<game>/<name>_v<version>``, names everything that makes its scores: the
*fingerprint* (SHA-256 of ``Scenario.definition``: the rules version, every parameter with
the game's defaults, the observation and action sizes, seats, background, bots' files,
episodes and metrics) of each id ever published is kept in ``versions.json``;
``check_versions`` fails for a scenario whose definition changed while its id did not. (A
change of what an observation means, at the same size, is a change of the game's rules
and of its rules version.)
"""

import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from dilemmas import GAMES
from dilemmas.analysis.studies.study import StudyError, canonical
from dilemmas.models.files import read_bytes
from dilemmas.models.policies import BOTS, POLICY
from dilemmas.models.population import entries

HERE = Path(__file__).resolve().parent
CATALOGUE = HERE / "catalogue"
VERSIONS = HERE / "versions.json"
KEYS = ("game", "rules_version", "metrics", "episodes", "substrate", "training", "bots",
        "scenario")
SCENARIO_KEYS = ("name", "version", "focal", "background", "description", "parameters",
                 "episodes")
TRAINING_KEYS = ("seeds", "seed", "episodes", "updates", "network", "ppo")
BOT_KEYS = ("description", "algorithm", "seed")


class ScenarioError(StudyError):
    """A scenario, a catalogue or a request that cannot be used, naming what is wrong."""


@dataclass(frozen=True)
class Bot:
    """A trained co-player shipped as ``bots/<game>_<name>.npz``, trained on the substrate
    with ``algorithm`` and training seed ``seed`` (``dilemmas.scenarios.baselines``)."""

    game: str
    name: str
    description: str
    algorithm: str
    seed: int

    @property
    def path(self) -> Path:
        return BOTS / f"{self.game}_{self.name}.npz"

    def digest(self) -> str:
        if not self.path.exists():
            return "missing"
        return hashlib.sha256(self.path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class Scenario:
    """One scenario (module docstring)."""

    game: str
    name: str
    version: int
    description: str
    focal: int
    background: str
    parameters: dict
    episodes: int
    metrics: tuple
    rules_version: int
    bots: dict = field(default_factory=dict)  # name -> Bot, the bots its background seats

    @property
    def id(self) -> str:
        return f"{self.game}/{self.name}_v{self.version}"

    @property
    def slug(self) -> str:
        """The id as a folder name."""
        return self.id.replace("/", "-")

    @property
    def seats(self) -> int:
        return self.focal + sum(count for _, count in self.background_entries())

    def background_entries(self) -> list[tuple[str, int]]:
        return entries(self.background) if self.background else []

    def seating(self, focal: str, policy=None) -> tuple[str, list]:
        """The population with the focal seats played by the behaviour ``focal`` (or by
        ``policy``, a policy or policy file, when ``focal`` is ``"policy"``), and the parts of
        the ``policy`` parameter it needs: ``(policy, seats)`` in seat order, the bots' files
        for their seats."""
        population = [f"{focal}:{self.focal}"]
        parts = [(policy, self.focal)] if focal == POLICY else []
        for name, count in self.background_entries():
            if name in self.bots:
                population.append(f"{POLICY}:{count}")
                parts.append((self.bots[name].path, count))
            else:
                population.append(f"{name}:{count}")
        return ",".join(population), parts

    def definition(self) -> dict:
        """What makes the scenario's scores (its description does not): the rules version,
        every parameter's value (the game's defaults included; ``policy_play`` only where
        the scenario sets it, so that definitions from before it are unchanged), the sizes of the
        observations and actions that policies see, the seats, the bots' files, the
        episodes and the metrics."""
        game = GAMES[self.game]
        model = game.model(**self.parameters, rng=0, collect_data=False)
        resolved = {**game.parameters.defaults(), **self.parameters}
        return {"game": self.game, "rules_version": self.rules_version,
                "parameters": {key: value for key, value in resolved.items()
                               if key not in ("population", "policy", "learner")
                               and (key != "policy_play" or key in self.parameters)},
                "observations": game.interface.observation_length(model),
                "actions": game.interface.actions(model), "focal": self.focal,
                "background": self.background, "episodes": self.episodes,
                "metrics": list(self.metrics),
                "bots": {name: bot.digest() for name, bot in sorted(self.bots.items())}}

    def fingerprint(self) -> str:
        return hashlib.sha256(canonical(self.definition()).encode()).hexdigest()


@dataclass(frozen=True)
class Catalogue:
    """One game's catalogue file, read and checked."""

    game: str
    substrate: dict
    training: dict
    bots: dict
    scenarios: tuple


def read_catalogue(path) -> Catalogue:
    """Read and check a catalogue file; ``ScenarioError`` names the file and the key."""
    path = Path(path)
    where = f"scenario catalogue {str(path)!r}"
    try:
        data = tomllib.loads(read_bytes(path).decode("utf-8"))
    except (OSError, ValueError) as error:
        raise ScenarioError(f"{where} cannot be read: {error}") from None
    _keys(where, data, KEYS)
    game = data.get("game")
    if game not in GAMES:
        raise ScenarioError(f"{where}: game={game!r} is not a game; allowed: {sorted(GAMES)}")
    if data.get("rules_version") != GAMES[game].rules_version:
        raise ScenarioError(
            f"{where}: rules_version={data.get('rules_version')!r}, but {game}'s rules are at "
            f"version {GAMES[game].rules_version}: give every scenario a new version and "
            "record the new ids (docs/scenarios.md, versioning)")
    training = data.get("training", {})
    _keys(f"{where} [training]", training, TRAINING_KEYS)
    _keys(f"{where} [substrate]", data.get("substrate", {}), GAMES[game].parameters.names)
    bots = {}
    for name, table in data.get("bots", {}).items():
        _keys(f"{where} [bots.{name}]", table, BOT_KEYS)
        if name in GAMES[game].behaviours:
            raise ScenarioError(f"{where}: the bot {name!r} has the name of a behaviour")
        bots[name] = Bot(game, name, table.get("description", ""),
                         table.get("algorithm", "ippo"), table.get("seed", 0))
    metrics = tuple(data.get("metrics", ()))
    unknown = sorted(set(metrics) - set(GAMES[game].ranges))
    if unknown:
        raise ScenarioError(f"{where}: metrics: {unknown[0]!r} is not an episode statistic "
                            f"of {game}; allowed: {list(GAMES[game].ranges)}")
    scenarios = []
    for table in data.get("scenario", []):
        _keys(f"{where} [[scenario]]", table, SCENARIO_KEYS)
        _keys(f"{where}: scenario {table.get('name')!r} parameters",
              table.get("parameters", {}), GAMES[game].parameters.names)
        scenario = Scenario(
            game=game, name=table.get("name"), version=table.get("version"),
            description=" ".join(str(table.get("description", "")).split()),
            focal=table.get("focal"), background=table.get("background", ""),
            parameters={**data.get("substrate", {}), **table.get("parameters", {})},
            episodes=table.get("episodes", data.get("episodes", 100)), metrics=metrics,
            rules_version=data["rules_version"],
            bots={name: bot for name, bot in bots.items()
                  if name in dict(entries(table.get("background", "")))})
        _check(f"{where}: scenario {table.get('name')!r}", scenario, bots)
        if scenario.episodes % training.get("seeds", 1):
            raise ScenarioError(f"{where}: scenario {scenario.name!r}: episodes="
                                f"{scenario.episodes} must be a multiple of [training] seeds "
                                f"({training.get('seeds', 1)}), which share a learner's "
                                "episodes")
        if any(other.id == scenario.id for other in scenarios):
            raise ScenarioError(f"{where}: the id {scenario.id!r} is given twice")
        scenarios.append(scenario)
    return Catalogue(game, data.get("substrate", {}), training, bots, tuple(scenarios))


def _keys(where, table, allowed):
    if not isinstance(table, dict):
        raise ScenarioError(f"{where} must be a table")
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise ScenarioError(f"{where}: unknown key {unknown[0]!r}; allowed: {list(allowed)}")


def _check(where, scenario: Scenario, bots: dict) -> None:
    """The name, version, seats, episodes and background of a scenario, and a model of it."""
    if not isinstance(scenario.name, str) or not scenario.name.isidentifier() \
            or not scenario.name.isascii() or not scenario.name.islower():
        raise ScenarioError(f"{where}: name must be lower-case letters, digits and '_'")
    for key, low in (("version", 1), ("focal", 1), ("episodes", 1)):
        value = getattr(scenario, key)
        if type(value) is not int or value < low:
            raise ScenarioError(f"{where}: {key}={value!r} must be an integer >= {low}")
    if not scenario.description:
        raise ScenarioError(f"{where}: the description is missing")
    names = {name for name, _ in scenario.background_entries()}
    allowed = (set(GAMES[scenario.game].behaviours) | set(bots)) - {POLICY}
    if names - allowed:
        raise ScenarioError(f"{where}: background={scenario.background!r} names "
                            f"{sorted(names - allowed)[0]!r}; allowed: the game's behaviours "
                            f"and bots {sorted(allowed)}")
    population = ",".join(f"{'random' if name in bots else name}:{count}" for name, count
                          in [("random", scenario.focal), *scenario.background_entries()])
    try:
        GAMES[scenario.game].model(**scenario.parameters, population=population, rng=0,
                                   collect_data=False)
    except (ValueError, TypeError) as error:
        raise ScenarioError(f"{where}: {error}") from None


@cache
def catalogues() -> dict[str, Catalogue]:
    """Every game's catalogue, by game, in the registry's order."""
    found = {}
    for path in sorted(CATALOGUE.glob("*.toml")):
        catalogue = read_catalogue(path)
        if catalogue.game in found:
            raise ScenarioError(f"scenario catalogue {str(path)!r}: a second catalogue of "
                                f"{catalogue.game}")
        found[catalogue.game] = catalogue
    return {game: found[game] for game in GAMES if game in found}


def scenarios() -> dict[str, Scenario]:
    """Every scenario, by id."""
    return {scenario.id: scenario for catalogue in catalogues().values()
            for scenario in catalogue.scenarios}


def select(spec: str) -> list[Scenario]:
    """The scenarios ``spec`` names: an id, a game's name (its scenarios) or ``all``."""
    known = scenarios()
    if spec == "all":
        return list(known.values())
    if spec in known:
        return [known[spec]]
    chosen = [scenario for scenario in known.values() if scenario.game == spec]
    if not chosen:
        raise ScenarioError(f"{spec!r} is not a scenario id, a game or 'all'; "
                            f"games: {sorted(catalogues())}; `dilemmas scenarios` lists the "
                            "ids")
    return chosen


# --- Versions -------------------------------------------------------------------------------

def recorded_versions() -> dict:
    return json.loads(VERSIONS.read_text()) if VERSIONS.exists() else {}


def check_versions(current=None, recorded=None) -> list[str]:
    """What is wrong with the scenarios' ids: each scenario whose fingerprint differs from the
    one recorded for its id (its definition changed, its id did not), and each scenario not
    recorded yet."""
    current = scenarios() if current is None else current
    recorded = recorded_versions() if recorded is None else recorded
    problems = []
    for scenario_id, scenario in current.items():
        if scenario_id not in recorded:
            problems.append(f"{scenario_id}: not recorded in versions.json (record new ids "
                            "with record_versions)")
        elif recorded[scenario_id] != scenario.fingerprint():
            problems.append(f"{scenario_id}: its definition changed but its id did not: raise "
                            "its version (a new id) and compute its baselines")
    return problems


def record_versions() -> list[str]:
    """Record the fingerprints of the scenarios not yet recorded (never overwriting one) and
    return their ids; a ScenarioError if a recorded id's definition changed."""
    recorded = recorded_versions()
    changed = [problem for problem in check_versions(recorded=recorded)
               if "not recorded" not in problem]
    if changed:
        raise ScenarioError("; ".join(changed))
    new = {scenario_id: scenario.fingerprint() for scenario_id, scenario in scenarios().items()
           if scenario_id not in recorded}
    if new:
        from dilemmas.models.files import write_atomic

        write_atomic(VERSIONS, (json.dumps({**recorded, **new}, indent=1, sort_keys=True)
                                + "\n").encode())
    return sorted(new)
