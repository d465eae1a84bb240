"""Exact optimal baselines of the Firefighting Graph Dec-POMDP
(docs/rules/firefighting_graph.md).

The game is a Dec-POMDP: the hidden state is every house's level, firefighter ``i`` acts on
its own flame bits only ("Observations"), the team reward of a step is minus the total fire
after the transition with ``shared_reward=True`` (the reward every firefighter receives,
counted once) and the sum of the firefighters' rewards with ``shared_reward=False``
("Rewards"). ``optimal_value(game, horizon, **parameters)`` is the highest expected total
team reward over ``horizon`` steps (the model's ``max_steps``) of a deterministic joint
policy -- firefighter ``i``'s action at step ``t + 1`` a function of its flame bits
``(o_1, ..., o_t)``, a dict from that tuple to the action -- with the levels drawn as the
rules draw them (each house uniform over 0 to ``max_fire_level``; ``initial_levels``: that
one state). It is computed exactly from the rules' tables (``tables``), never by simulation:

* ``method="search"`` (default): depth-first search over occupancy states (the
  distribution over the levels and the joint flame histories, Oliehoek's plan-time
  sufficient statistic), one joint decision rule per stage, pruned by the fully observable
  upper bound (each branch's value so far plus the centralised MDP value of its occupancy);
  the last stage is a one-shot game solved by enumerating its joint decision rules at once.
* ``method="brute_force"``: every joint policy enumerated and evaluated by
  ``policy_value``, an independent backward recursion over the joint flame histories.

Both cover the row and the grid layouts and any ``max_fire_level``, up to
``MAX_JOINT_POLICIES`` joint policies and ``MAX_TABLE`` entries of the joint transition
table; a larger instance is refused with a ``ValueError`` naming its size. The episode of
the model ends early when every house is at 0 ("Termination"); then no house can ever
ignite again (a house at 0 with no burning neighbour stays 0) and every later reward is 0,
so the total is the one of the full ``horizon`` computed here.

``optimal_table`` lists optima of several instances with both methods and their times;
``dilemmas.analysis.optimum`` plays behaviours and learners against these optima.
"""

import itertools
import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from dilemmas.models.firefighting_graph.model import FirefightingGraphModel

GAME = "firefighting_graph"
#: Largest number of deterministic joint policies either method accepts.
MAX_JOINT_POLICIES = 10**6
#: Largest number of entries (joint actions x states x states) of the joint transition.
MAX_TABLE = 10**7
#: Behaviours whose choice depends only on their own flames and the public rules.
DETERMINISTIC = ("fixed0", "fixed1", "belief_tracker")
#: Model parameters that choose who plays, not the game: refused by ``optimal_value``.
SEATING = ("population", "policy", "learner")
#: Ties and pruning: a value counts as better only by more than this.
TOLERANCE = 1e-12
#: The default instances of ``optimal_table``: (firefighters, horizon), row layout.
CASES = ((2, 1), (2, 2), (2, 3), (3, 1), (3, 2))


# --- The tables of the rules --------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Tables:
    """The rules' Dec-POMDP as arrays. States are the level vectors in row-major house order,
    indexed with house 0 the most significant digit (base ``max_fire_level + 1``); joint
    actions ``sum(a_i * n_actions ** (n_agents - 1 - i))``."""

    shape: tuple            # houses: rows, columns
    n_agents: int
    n_actions: int
    max_fire_level: int
    guarded: np.ndarray     # (n_agents, n_actions): the house action a of firefighter i visits
    states: np.ndarray      # (S, houses): the levels of each state
    house: np.ndarray       # (3, 2, L + 1, L + 1): P(level' | crew 0/1/2+, near, level)
    transition: np.ndarray  # (joint actions, S, S): P(s' | s, a)
    flame: np.ndarray       # (n_agents, n_actions, S): P(o_i = 1 | s', a_i)
    reward: np.ndarray      # (joint actions, S): team reward of a step ending in s'
    initial: np.ndarray     # (S,): the distribution of the levels at the start
    joint_actions: np.ndarray  # (joint actions, n_agents): each firefighter's action


def house_transition(max_fire_level, p_ignite, p_grow_neighbour, p_grow_alone,
                     p_reduce_neighbour, p_reduce_alone, p_two_agents) -> np.ndarray:
    """``P[crew, near, level, level']`` of one house ("Round", transition table): crew 0, 1
    or 2+ firefighters, ``near`` a burning neighbour; the effect +1, -1 or "set to 0" with the
    case's probability, the level then clipped to 0 to ``max_fire_level``."""
    top = max_fire_level
    table = np.zeros((3, 2, top + 1, top + 1))
    for near, level in itertools.product((0, 1), range(top + 1)):
        burning = level > 0
        cases = (  # crew: (probability, level after the effect)
            (p_ignite if near else 0.0) if not burning
            else (p_grow_neighbour if near else p_grow_alone),
            0.0 if not burning else (p_reduce_neighbour if near else p_reduce_alone),
            0.0 if not burning else p_two_agents)
        after = (min(level + 1, top), max(level - 1, 0), 0)
        for crew, (p, target) in enumerate(zip(cases, after)):
            table[crew, near, level, target] += p
            table[crew, near, level, level] += 1 - p
    return table


def neighbours(shape) -> list[list[int]]:
    """The orthogonal neighbours of each house, row-major, no wrap-around ("World")."""
    rows, cols = shape
    return [[(r + dr) * cols + c + dc for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
             if 0 <= r + dr < rows and 0 <= c + dc < cols]
            for r in range(rows) for c in range(cols)]


def tables(game: str, horizon: int = 1, **parameters) -> Tables:
    """The rules' tables of the game with ``parameters`` (validated by building the model),
    refused with a ``ValueError`` if the instance is too large for ``horizon`` (which only
    the size check reads)."""
    return _tables(_model(game, horizon, parameters), horizon, parameters)


def _model(game, horizon, parameters):
    """The model the parameters build (its ValueError for a bad one), once checked that the
    game is supported, ``horizon`` a whole number >= 1 and nobody is seated."""
    if game != GAME:
        raise ValueError(f"game={game!r} is not supported: exact optima are computed for "
                         f"{GAME!r} only")
    if type(horizon) is not int or horizon < 1:
        raise ValueError(f"horizon={horizon!r} is invalid: must be an integer >= 1 (the "
                         "number of steps played, the model's max_steps)")
    seated = [name for name in SEATING if name in parameters]
    if seated:
        raise ValueError(f"{', '.join(seated)} chooses who plays, not the game: the optimum "
                         "is over all joint policies (use baselines for behaviours)")
    if parameters.get("max_steps", horizon) != horizon:
        raise ValueError(f"max_steps={parameters['max_steps']!r} differs from "
                         f"horizon={horizon}: the horizon is the number of steps played")
    values = {**parameters, "max_steps": horizon}
    return FirefightingGraphModel(**values, rng=0, collect_data=False)


def joint_policy_count(n_agents, n_actions, horizon) -> int:
    """Deterministic joint policies: ``n_actions`` per flame history of length
    0 to ``horizon - 1`` (``2 ** horizon - 1`` of them) of each firefighter."""
    return n_actions ** (n_agents * (2 ** horizon - 1))


def _size(count: int) -> str:
    """A count in words: exact up to 10^15, else its order of magnitude."""
    return f"{count:,}" if count < 10**15 else f"about 10^{math.log10(count):.0f}"


def _check_size(model, horizon):
    """A ValueError naming the size if the instance has more than ``MAX_JOINT_POLICIES``
    joint policies or ``MAX_TABLE`` joint transition entries."""
    n, actions = model.n_agents, model.n_actions
    exponent = n * (2 ** min(horizon, 41) - 1)
    if horizon > 40 or exponent * math.log2(actions) > math.log2(MAX_JOINT_POLICIES):
        count = _size(actions ** exponent) if exponent <= 64 \
            else f"{actions}^({n} x (2^{horizon} - 1))"
        raise ValueError(f"{n} firefighters with {actions} actions over horizon {horizon} "
                         f"have {count} deterministic joint policies, more than "
                         f"{MAX_JOINT_POLICIES:,}: too large to solve exactly")
    states = (model.max_fire_level + 1) ** model.num_houses
    entries = actions ** n * states ** 2
    if entries > MAX_TABLE:
        raise ValueError(f"{model.num_houses} houses with max_fire_level="
                         f"{model.max_fire_level} have {_size(states)} states and "
                         f"{_size(actions ** n)} joint actions: a joint transition table of "
                         f"{_size(entries)} entries, more than {MAX_TABLE:,}: too large to "
                         "solve exactly")


def _tables(model, horizon, parameters) -> Tables:
    """The rules' tables of ``model``'s game ("World", "Round", "Rewards")."""
    _check_size(model, horizon)
    shape, top, n = model.levels.shape, model.max_fire_level, model.n_agents
    houses = shape[0] * shape[1]
    house = house_transition(top, model.p_ignite, model.p_grow_neighbour, model.p_grow_alone,
                             model.p_reduce_neighbour, model.p_reduce_alone,
                             model.p_two_agents)
    states = np.array(list(itertools.product(range(top + 1), repeat=houses)), dtype=np.int64)
    size = len(states)
    lit = states > 0
    near = np.stack([lit[:, others].any(axis=1) for others in neighbours(shape)], axis=1)
    guarded = np.array(model.guarded)
    joint_actions = np.array(list(itertools.product(range(model.n_actions), repeat=n)))
    transition = np.empty((len(joint_actions), size, size))
    reward = np.empty((len(joint_actions), size))
    for index, actions in enumerate(joint_actions):
        visited = guarded[np.arange(n), actions]
        crew = np.minimum(np.bincount(visited, minlength=houses), 2)
        rows = np.ones((size, 1))
        for h in range(houses):  # P(s' | s) is the product of the houses' factors
            factor = house[crew[h], near[:, h].astype(int), states[:, h]]  # (S, L + 1)
            rows = (rows[:, :, None] * factor[:, None, :]).reshape(size, -1)
        transition[index] = rows
        reward[index] = -(states.sum(axis=1) if model.shared_reward
                          else states[:, visited].sum(axis=1))
    seen = np.asarray(model.p_observe)[np.minimum(states, 2)]  # (S, houses)
    flame = np.stack([seen[:, guarded[i]].T for i in range(n)])
    if parameters.get("initial_levels") is None:
        initial = np.full(size, 1.0 / size)
    else:
        initial = np.zeros(size)
        initial[np.ravel_multi_index(tuple(model.initial_levels.reshape(-1)),
                                     (top + 1,) * houses)] = 1
    return Tables(shape, n, model.n_actions, top, guarded, states, house, transition, flame,
                  reward, initial, joint_actions)


# --- Joint policies -----------------------------------------------------------------------

def histories(horizon: int) -> list[tuple]:
    """Every flame history a firefighter can have when it acts: tuples of 0/1 of length
    0 to ``horizon - 1``, shortest first, then in binary order."""
    return [h for t in range(horizon) for h in itertools.product((0, 1), repeat=t)]


def policy_value(tab: Tables, joint_policy, horizon: int) -> float:
    """The exact expected total team reward of a deterministic joint policy (one dict per
    firefighter: flame history -> action), by ``evaluator``."""
    return evaluator(tab, horizon)(joint_policy)


def evaluator(tab: Tables, horizon: int):
    """``joint policy -> exact value``, by backward recursion over the joint flame histories:
    ``V(s | h) = sum_s' P(s' | s, a) (r(s', a) + sum_o P(o | s', a) V(s' | h o))`` with ``a``
    the joint action of ``h`` and ``P(o | s', a)`` the product of the firefighters' flame
    probabilities ("Round", observe); the value is the mean of ``V(s | ())`` over the start."""
    n, size = tab.n_agents, len(tab.states)
    radix = tab.n_actions ** np.arange(n - 1, -1, -1)
    bits = np.stack([1 - tab.flame, tab.flame], axis=2)  # (n, actions, bit, S)
    last = np.einsum("ast,at->as", tab.transition, tab.reward)  # the last step's reward
    seen = list(itertools.product((0, 1), repeat=n))

    def value(joint_policy, history):
        actions = [joint_policy[i][history[i]] for i in range(n)]
        index = int(np.dot(actions, radix))
        if len(history[0]) + 1 == horizon:
            return last[index]
        likelihood = bits[0, actions[0]]  # (joint observations so far, S)
        for i in range(1, n):
            likelihood = (likelihood[:, None, :] * bits[i, actions[i]][None]).reshape(-1, size)
        after = [value(joint_policy, tuple(h + (bit,) for h, bit in zip(history, o)))
                 for o in seen]
        return tab.transition[index] @ (tab.reward[index] + (likelihood * after).sum(axis=0))

    return lambda joint_policy: float(tab.initial @ value(joint_policy, ((),) * n))


def _brute_force(tab: Tables, horizon: int):
    """Every deterministic joint policy evaluated by ``evaluator``; the first best."""
    nodes = histories(horizon)
    own = [dict(zip(nodes, actions))
           for actions in itertools.product(range(tab.n_actions), repeat=len(nodes))]
    evaluate = evaluator(tab, horizon)
    best, chosen = -math.inf, None
    for joint in itertools.product(own, repeat=tab.n_agents):
        value = evaluate(joint)
        if value > best + TOLERANCE:
            best, chosen = value, joint
    return best, chosen


def _search(tab: Tables, horizon: int):
    """Depth-first search over occupancy states (module docstring), stage by stage."""
    n, actions = tab.n_agents, tab.n_actions
    radix = actions ** np.arange(n - 1, -1, -1)
    expected = np.einsum("ast,at->as", tab.transition, tab.reward)  # reward of a from s
    bounds = [np.zeros(len(tab.states))]  # centralised, fully observable: steps to go
    for _ in range(horizon):
        bounds.append((expected + tab.transition @ bounds[-1]).max(axis=0))
    # P(joint observation o | s', a), o with firefighter 0's bit the most significant
    seen = np.stack([1 - tab.flame, tab.flame], axis=-1)  # (n, actions, S, bit)
    likelihood = np.ones((len(tab.joint_actions), 2 ** n, len(tab.states)))
    for o, bits in enumerate(itertools.product((0, 1), repeat=n)):
        for i, bit in enumerate(bits):
            likelihood[:, o] *= seen[i, tab.joint_actions[:, i], :, bit]
    best = {"value": -math.inf, "rules": None}

    def stage(t):
        """Own histories of each joint history of length t, the decision rules of one
        firefighter (one action per own history) and the joint history after o."""
        width = 2 ** t
        own = np.array(list(itertools.product(range(width), repeat=n))).reshape(-1, n)
        rules = np.array(list(itertools.product(range(actions), repeat=width)))
        after = np.zeros((len(own), 2 ** n), dtype=np.int64)
        for o, bits in enumerate(itertools.product((0, 1), repeat=n)):
            after[:, o] = ((2 * own + np.array(bits)) * (2 * width) ** np.arange(
                n - 1, -1, -1)).sum(axis=1)
        return own, rules, after

    stages = [stage(t) for t in range(horizon)]

    def visit(t, occupancy, gained, chosen):
        own, rules, after = stages[t]
        if t == horizon - 1:  # a one-shot game: every joint decision rule at once
            q = occupancy @ expected.T  # (joint histories, joint actions)
            joint = sum(rules[:, own[:, i]].reshape((1,) * i + (-1,) + (1,) * (n - 1 - i)
                                                    + (len(own),)) * radix[i]
                        for i in range(n)).reshape(-1, len(own))
            values = gained + q[np.arange(len(own)), joint].sum(axis=1)
            j = int(np.argmax(values))
            if values[j] > best["value"] + TOLERANCE:
                picks = np.unravel_index(j, (len(rules),) * n)
                best.update(value=float(values[j]),
                            rules=chosen + [tuple(rules[p] for p in picks)])
            return
        children = []
        for picks in itertools.product(range(len(rules)), repeat=n):
            joint = sum(rules[p][own[:, i]] * radix[i] for i, p in enumerate(picks))
            step = float((occupancy * expected[joint]).sum())
            predicted = np.einsum("ks,kst->kt", occupancy, tab.transition[joint])
            upper = gained + step + float((predicted @ bounds[horizon - t - 1]).sum())
            children.append((-upper, picks, joint, step, predicted))
        for negative, picks, joint, step, predicted in sorted(children, key=lambda c: c[:2]):
            if -negative <= best["value"] + TOLERANCE:
                break  # sorted by the upper bound: no later child can do better
            following = np.empty((len(own) * 2 ** n, len(tab.states)))
            following[after.reshape(-1)] = (predicted[:, None, :]
                                            * likelihood[joint]).reshape(-1, len(tab.states))
            visit(t + 1, following, gained + step,
                  chosen + [tuple(rules[p] for p in picks)])

    visit(0, tab.initial[None, :], 0.0, [])
    joint = tuple({history: int(best["rules"][len(history)][i][_index(history)])
                   for history in histories(horizon)} for i in range(n))
    return best["value"], joint


def _index(history) -> int:
    """The position of a flame history among those of its length (binary, first bit high)."""
    return int("".join(map(str, history)) or "0", 2)


# --- The optimum and its playable policy --------------------------------------------------

class HistoryPolicy:
    """A joint policy of flame histories (one dict per seat) as the model's ``policy`` for
    the ``policy`` seats (docs/policies.md): each seat's history of the current episode is
    rebuilt from its observations -- reset when the vector says "none yet" (the first step,
    docs/rules/firefighting_graph.md, "Learning agents"), else extended by its flame bit."""

    def __init__(self, joint_policy):
        self.tables = tuple(dict(table) for table in joint_policy)
        self.horizon = max(len(history) for table in self.tables for history in table) + 1
        self.history = {}

    def decide(self, model, agent, observation) -> int:
        vector, seat = observation["observation"], agent.seat
        if vector[0]:
            history = ()
        elif seat in self.history:
            history = self.history[seat] + (int(vector[2]),)
        else:
            raise ValueError(f"seat {seat} decides after the first step without having "
                             "decided at the first step: its flame history is unknown")
        self.history[seat] = history
        if history not in self.tables[seat]:
            raise ValueError(f"the policy of seat {seat} has no action for the flame history "
                             f"{history}: it was made for horizon {self.horizon}")
        return self.tables[seat][history]

    def __call__(self, observation):
        raise TypeError("a flame-history policy keeps each seat's history: it plays inside a "
                        "model (the 'policy' behaviour), or call decide(model, agent, "
                        "observation)")

    def check_fits(self, model) -> None:
        """A ValueError unless there is one table per seat and the episode fits the horizon."""
        if len(self.tables) != model.n_agents or model.max_steps > self.horizon:
            raise ValueError(f"the policy has {len(self.tables)} firefighters and horizon "
                             f"{self.horizon}, but the model has {model.n_agents} "
                             f"firefighters and max_steps={model.max_steps}")


@dataclass(frozen=True)
class Optimum:
    """The optimal expected total team reward ``value`` over ``horizon`` steps with the model
    ``parameters``, an optimal joint ``policy`` (one dict per firefighter: flame history ->
    action), the ``method`` and the ``seconds`` it took."""

    value: float
    horizon: int
    parameters: dict
    policy: tuple
    method: str
    seconds: float = field(compare=False)
    game: str = GAME

    @property
    def playable(self) -> HistoryPolicy:
        """A fresh ``HistoryPolicy`` of ``policy``, for ``population="policy"``."""
        return HistoryPolicy(self.policy)


METHODS = {"search": _search, "brute_force": _brute_force}


def optimal_value(game: str, horizon: int, method: str = "search", **parameters) -> Optimum:
    """The exact optimum of a deterministic joint policy over ``horizon`` steps (module
    docstring) by ``method`` ``"search"`` or ``"brute_force"``; ``parameters`` are the
    model's (``population``, ``policy`` and ``learner`` refused: they seat players)."""
    if method not in METHODS:
        raise ValueError(f"method={method!r} is invalid: must be one of {sorted(METHODS)}")
    start = time.perf_counter()
    tab = tables(game, horizon, **parameters)
    value, policy = METHODS[method](tab, horizon)
    return Optimum(value, horizon, dict(parameters), policy, method,
                   time.perf_counter() - start, game)


def behaviour_policy(behaviour: str, horizon: int, **parameters) -> tuple:
    """The joint policy (one dict per seat: flame history -> action) of a deterministic
    behaviour, read from its own ``choose_action`` on a fresh model whose observations are
    set to each bit of the history in turn ("Behaviours")."""
    if behaviour not in DETERMINISTIC:
        raise ValueError(f"behaviour={behaviour!r} has no policy tree: must be one of "
                         f"{DETERMINISTIC} (a deterministic behaviour of its own flames)")
    model = _model(GAME, horizon, parameters)
    parameters = {**parameters, "max_steps": horizon}
    joint = tuple({} for _ in range(model.n_agents))
    for history in histories(horizon):
        model = FirefightingGraphModel(**parameters, population=behaviour, rng=0,
                                  collect_data=False)
        for k in range(len(history) + 1):
            if k:
                model.observations[:] = history[k - 1]
            chosen = [agent.choose_action() for agent in model.seats]
        for table, action in zip(joint, chosen):
            table[history] = int(action)
    return joint


def network_policy(policy, horizon: int, **parameters) -> tuple:
    """The joint policy (one dict per seat: flame history -> action) of a policy that
    decides from the observation vectors (``dilemmas.models.policies``, e.g. a trained
    network): each seat shown, step by step, the vector of the flames in the history and the
    house it chose (``env.vectors``), its memory carried from step to step."""
    from dilemmas.models.firefighting_graph.env import vectors

    model = _model(GAME, horizon, parameters)
    joint = tuple({} for _ in range(model.n_agents))
    mask = np.ones(model.n_actions, dtype=np.int8)
    for seat, table in enumerate(joint):
        for history in histories(horizon):
            flames = np.full((1, model.n_agents), -1)
            visited = np.full((1, model.n_agents), -1)
            memory = None
            for k in range(len(history) + 1):
                if k:
                    flames[0, seat] = history[k - 1]
                    visited[0, seat] = model.guarded[seat, action]
                vector = vectors(model, [seat], flames, visited)[0, 0]
                outputs, memory = policy.forward(vector, memory)
                action = int(np.argmax(np.where(mask.astype(bool), outputs, -np.inf)))
            table[history] = action
    return joint


def exact_value(policy, horizon: int, **parameters) -> float:
    """The exact expected total team reward of a deterministic behaviour's name
    (``DETERMINISTIC``) or a joint policy (one dict per seat), by ``policy_value``."""
    if isinstance(policy, str):
        policy = behaviour_policy(policy, horizon, **parameters)
    return policy_value(tables(GAME, horizon, **parameters), policy, horizon)


def optimal_table(cases=CASES, brute_force: bool = True, **parameters) -> pd.DataFrame:
    """The optimum of each (firefighters, horizon) row instance by both methods, with their
    seconds; the ``oliehoek`` preset unless ``parameters`` name another."""
    parameters = {"preset": "oliehoek", **parameters}
    rows = []
    for firefighters, horizon in cases:
        found = optimal_value(GAME, horizon, **parameters, n_agents=firefighters)
        row = dict(firefighters=firefighters, horizon=horizon, optimum=found.value,
                   seconds=found.seconds)
        if brute_force:
            check = optimal_value(GAME, horizon, method="brute_force", **parameters,
                                  n_agents=firefighters)
            row.update(brute_force=check.value, brute_force_seconds=check.seconds,
                       difference=abs(check.value - found.value))
        rows.append(row)
    return pd.DataFrame(rows)


