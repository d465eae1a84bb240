"""Stag Hunt Physical: the rules as data -- rule constants, the parameter declaration and the
DataCollector columns (docs/rules/stag_hunt.md); the Mesa model that plays them is ``model``."""

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

import numpy as np

from dilemmas.models import validation as check
from dilemmas.models.learners import learner_parameter
from dilemmas.models.parameters import (MAX_STEPS, Boolean, Choice, Custom, Integer, Parameter,
                                        Parameters, Population, Probability, Real, Select, Slider,
                                        Text, When)
from dilemmas.models.policies import play_parameter, policy_parameter
from dilemmas.models.stag_hunt.maps import HARE, STAG

ACTIONS = ("NOOP", "FORWARD", "BACKWARD", "STEP_LEFT", "STEP_RIGHT", "TURN_LEFT",
           "TURN_RIGHT", "ATTACK", "PUNISH")
(NOOP, FORWARD, BACKWARD, STEP_LEFT, STEP_RIGHT, TURN_LEFT, TURN_RIGHT, ATTACK,
 PUNISH) = range(len(ACTIONS))
#: Row and column offsets of the orientations 0 N, 1 E, 2 S, 3 W ("up" decreases the row).
DIRECTIONS = ((-1, 0), (0, 1), (1, 0), (0, -1))
#: Each move's direction, in quarter turns clockwise from the facing.
MOVE_TURNS = {FORWARD: 0, STEP_RIGHT: 1, BACKWARD: 2, STEP_LEFT: 3}
#: Resource codes of the model's ``resource`` layer (and of ASCII maps: '1', '2').
RESOURCE_NAMES = {STAG: "stag", HARE: "hare"}
#: Observation channels: empty, wall, stag, hare, then one per agent kind (sorted), then
#: the attack beam and the punish beam.
EMPTY, WALL, STAG_CHANNEL, HARE_CHANNEL = 0, 1, 2, 3
KIND_CHANNEL = 4
ATTACK_MODES = ("area", "single", "beam")
#: Observation channel of each ``resource`` code (0 none, 1 stag, 2 hare).
_RESOURCE_CHANNEL = np.array([EMPTY, STAG_CHANNEL, HARE_CHANNEL])
AGENT_CONFIG_KEYS = {"kind": str, "can_hunt": bool, "can_receive_shared_reward": bool,
                     "exclusive_reward": bool}

#: Behaviour mixes the dashboard offers.
MIXES = ("random", "hare_hunter", "stag_hunter", "cooperator", "policy:1,cooperator:2",
         "q_learning:1,cooperator:2", "cooperator:1,hare_hunter:2",
         "cooperator:1,stag_hunter:1,hare_hunter:1")


def _map_source(name, value, values):
    if not isinstance(value, (str, Path)):
        raise ValueError(f"{name}={value!r} is invalid: must be None, the map as text or the "
                         "path of a map file")
    return value


def _agent_configs(name, value, values):
    return _agent_config(value, values["num_agents"])


PARAMETERS = Parameters((
    Parameter("height", 13, Integer(low=3, high=200),
              "rows of a random map, border walls included (unused with `ascii_map`)",
              used=(When("ascii_map", (None,)),)),
    Parameter("width", 13, Integer(low=3, high=200),
              "columns of a random map, border walls included (unused with `ascii_map`)",
              used=(When("ascii_map", (None,)),)),
    Parameter("wall_density", 0.0, Real(low=0, high=0.99),
              "share of a random map's interior cells made walls",
              control=Slider(0.0, 0.3, 0.05), used=(When("ascii_map", (None,)),)),
    Parameter("resource_density", 0.15, Probability(),
              "probability that an open cell of a random map starts with a resource",
              control=Slider(0.0, 0.5, 0.05), used=(When("ascii_map", (None,)),)),
    Parameter("stag_probability", 0.5, Probability(), "probability that a drawn resource is a "
                                                      "stag",
              control=Slider(0.0, 1.0, 0.05), used=(When("ascii_map", (None,)),)),
    Parameter("ascii_map", None, Custom(_map_source, "a `str` or a `pathlib.Path`: the map as "
                                        "text (a `str` with a line break) or a map file's path; "
                                        "the map must be valid (see World)",
                                        invalid=("WWW\nWPW\nW?W\nWWW",)),
              "the map; None for a random map (the dashboard takes the map's text only, "
              "never a file's path)", optional=True, control=Text()),
    Parameter("num_agents", 3, Integer(low=1, high=100), "configured agents (seats)"),
    Parameter("num_agents_to_spawn", 2, Integer(low=1, high="num_agents"),
              "agents that play the episode, drawn from the seats",
              control=Slider(1, "num_agents"),
              requires="with `random_agent_spawning=True`, at most the map's free open cells, "
              "and with `False`, at most its spawn points (a random map has `min(num_agents, "
              "open cells)`)"),
    Parameter("population", "random", Population(count="num_agents"),
              "behaviour of each seat, seats filled in the order written", control=Select(MIXES)),
    policy_parameter(),
    play_parameter(),
    learner_parameter(),
    Parameter("agent_config", None,
              Custom(_agent_configs, "`None` or a sequence (list, tuple; not a string or a "
                     "mapping) of exactly `num_agents` mappings with keys from `kind` (non-empty "
                     "str), `can_hunt`, `can_receive_shared_reward`, `exclusive_reward` (each "
                     "`True` or `False`)",
                     invalid=([{}, {}], [{}, {}, {"can_fly": True}])),
              "each seat's kind and flags (see World)"),
    Parameter("random_agent_spawning", True, Boolean(),
              "agents start (and return) on random free cells, else on spawn points"),
    Parameter("agent_health", 5, Integer(low=1, high=1000),
              "an agent's full health: punish hits it takes before removal"),
    Parameter("respawn_lag", 10, Integer(low=0, high=MAX_STEPS),
              "whole turns a removed agent misses"),
    Parameter("simplified_movement", True, Boolean(),
              "a successful move turns the agent to face the way it moved"),
    Parameter("attack_mode", None, Choice(ATTACK_MODES),
              "the attack's footprint; None derives it from the two flags below",
              control=Select(ATTACK_MODES), optional=True),
    Parameter("area_attack", True, Boolean(), "with `attack_mode=None`: `area` if True",
              used=(When("attack_mode", (None,)),)),
    Parameter("single_tile_attack", True, Boolean(),
              "with `attack_mode=None` and `area_attack=False`: `single` if True, else `beam`",
              used=(When("attack_mode", (None,)), When("area_attack", (False,)))),
    Parameter("attack_cooldown", 1, Integer(low=0, high=MAX_STEPS),
              "cooldown of ATTACK in `area` and `single` modes"),
    Parameter("attack_cost", 0.0, Real(low=0), "subtracted from the attacker's reward per attack "
                                               "fired", between_rounds=True),
    Parameter("attack_range", 3, Integer(low=1, high=200), "length of the `single` attack"),
    Parameter("beam_cooldown", 3, Integer(low=0, high=MAX_STEPS),
              "cooldown of ATTACK in `beam` mode"),
    Parameter("beam_length", 3, Integer(low=1, high=200), "length of the `beam` attack and of "
                                                          "the punish beam"),
    Parameter("beam_radius", 2, Integer(low=0, high=200), "largest half-width of the `beam` "
                                                          "attack"),
    Parameter("punish_cooldown", 5, Integer(low=0, high=MAX_STEPS),
              "cooldown of PUNISH"),
    Parameter("punish_cost", 0.1, Real(low=0), "subtracted from the shooter's reward per punish "
                                               "fired, hit or miss", between_rounds=True),
    Parameter("stag_health", 2, Integer(low=1, high=1000), "a stag's full health (hits to kill "
                                                           "it)"),
    Parameter("stag_reward", 100.0, Real(), "reward of a stag, shared", between_rounds=True),
    Parameter("stag_regeneration_cooldown", 1, Integer(low=0, high=MAX_STEPS),
              "whole turns before a killed stag regrows"),
    Parameter("hare_health", 1, Integer(low=1, high=1000), "a hare's full health"),
    Parameter("hare_reward", 3.0, Real(), "reward of a hare, shared", between_rounds=True),
    Parameter("hare_regeneration_cooldown", 1, Integer(low=0, high=MAX_STEPS),
              "whole turns before a killed hare regrows"),
    Parameter("heal_delay", 1, Integer(low=0, high=MAX_STEPS),
              "turns after its last hit at which a wounded resource heals; 0 never heals",
              control=Slider(0, 5)),
    Parameter("reward_sharing_radius", 2, Integer(low=0, high=200),
              "Chebyshev radius around a kill within which agents share its reward"),
    Parameter("vision_radius", 4, Integer(low=0, high=200), "radius `r` of the observation "
                                                            "window"),
    Parameter("embedding_size", 3, Integer(low=1, high=200),
              "side `n` of the positional encoding's `n x n` partition"),
    Parameter("max_steps", 50, Integer(low=1, high=MAX_STEPS), "turns in an episode"),
))

#: The version of these rules that results record (docs/rules/stag_hunt.md, "Random numbers
#: and arrays"): 2 since the turn is played over arrays (``dilemmas.models.stag_hunt.arrays``),
#: each chance drawing its own number; 3 since the model plays its round on the batch
#: engine's methods (``dilemmas.models.stag_hunt.batch``), the act order drawn from
#: ``model.rng`` as the engine draws it.
RULES_VERSION = 3

MODEL_REPORTERS = ("turn", "stags_defeated", "hares_defeated", "coordinated_stag_kills",
                   "stag_share", "attacks", "punishments", "punish_hits", "removals",
                   "agents_removed", "stags_on_map", "hares_on_map", "mean_reward")
AGENT_REPORTERS = ("behaviour", "kind", "health", "reward", "stags", "hares", "removed")


class Observation(NamedTuple):
    """What an agent sees (docs/rules/stag_hunt.md, "Observations").

    ``view``: float32 ``(2r+1, 2r+1, channels)``, the window centred on the agent, cells
    outside the grid read as walls: one-hot over the cell's entity (empty, wall, stag, hare,
    one channel per agent kind in ``model.kinds`` order), then two channels marking this
    turn's attack beam and punish beam on top of it. ``features``: float32 (stags held,
    hares held, ready, shared reward last turn). ``position``: float32 one-hot of length
    ``embedding_size ** 2``. ``vector()`` is all three flattened, of length
    ``model.observation_size``.
    """

    view: np.ndarray
    features: np.ndarray
    position: np.ndarray

    def vector(self) -> np.ndarray:
        return np.concatenate([self.view.ravel(), self.features, self.position])


class Defeat(NamedTuple):
    """A resource defeated: ``hitters`` are the seats that hit it this turn, ``recipients``
    the seats paid ``share`` each (the defeater first)."""

    turn: int
    kind: str
    cell: tuple[int, int]
    defeater: int
    hitters: tuple[int, ...]
    recipients: tuple[int, ...]
    share: float


@functools.cache
def _rays(mode, attack_range, beam_length, beam_radius):
    """Per orientation, the rays of a footprint: tuples of ``(d_row, d_col, hits)``; a ray
    stops at its first wall, ``hits`` says whether the cell is in the footprint."""
    if mode == "area":
        frame = [[(d, l, True)] for d in range(3) for l in (-1, 0, 1)]
    elif mode == "single":
        frame = [[(d, 0, True) for d in range(1, attack_range + 1)]]
    elif mode == "beam":
        frame = [[(d, l, abs(l) <= d - 1) for d in range(1, beam_length + 1)]
                 for l in range(-beam_radius, beam_radius + 1)]
    else:  # the punish beam
        frame = [[(d, 0, True) for d in range(1, beam_length + 1)]]
    rays = []
    for orientation in range(4):
        (fr, fc), (rr, rc) = DIRECTIONS[orientation], DIRECTIONS[(orientation + 1) % 4]
        rays.append(tuple(tuple((d * fr + l * rr, d * fc + l * rc, hits)
                                for d, l, hits in ray) for ray in frame))
    return tuple(rays)


def _agent_config(value, num_agents):
    if value is None:
        return [{"kind": "B" if seat % 3 == 2 else "A", "can_hunt": seat % 3 != 2,
                 "can_receive_shared_reward": True, "exclusive_reward": False}
                for seat in range(num_agents)]
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__len__") \
            or len(value) != num_agents:
        raise ValueError(f"agent_config={value!r} is invalid: must be None or a list of "
                         f"{num_agents} mappings, one per agent (num_agents={num_agents})")
    configs = []
    for seat, entry in enumerate(value):
        if not isinstance(entry, Mapping):
            raise ValueError(f"agent_config[{seat}]={entry!r} is invalid: must be a mapping "
                             f"with keys from {sorted(AGENT_CONFIG_KEYS)}")
        unknown = set(entry) - set(AGENT_CONFIG_KEYS)
        if unknown:
            raise ValueError(f"agent_config[{seat}] has unknown keys {sorted(unknown)}; "
                             f"allowed: {sorted(AGENT_CONFIG_KEYS)}")
        config = {"kind": "A", "can_hunt": True, "can_receive_shared_reward": True,
                  "exclusive_reward": False, **entry}
        for key, kind in AGENT_CONFIG_KEYS.items():
            if kind is bool:
                check.boolean(f"agent_config[{seat}][{key!r}]", config[key])
            elif not isinstance(config[key], str) or not config[key]:
                raise ValueError(f"agent_config[{seat}]['kind']={config[key]!r} is invalid: "
                                 "must be a non-empty string")
        configs.append(config)
    return configs
