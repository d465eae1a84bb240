"""The phase schedule every game shares: a model declares its phases as data.

docs/rules/README.md, rule 2: the documented phase order is enforced by one mechanism,
``step()`` runs the declared phases in that order, and the sequence actually run is
observable. A game's parameters are declared next to its phases (``parameters``,
``dilemmas/models/parameters.py``): the declaration is the constructor's signature, and
``set_parameters(parameters)`` checks the keywords given and sets each on the model under
its declared name (``check_parameters`` checks without setting).

A subclass of :class:`PhasedModel` lists its round as ``phases``, a tuple of the following
(a model may replace its class's tuple in ``__init__``, e.g. to pick an order from a
parameter):

* :class:`ModelPhase` -- calls a method of the model;
* :class:`AgentPhase` -- calls a method on a set of agents, in one of four orders:

  - ``"seat"``: seat (creation) order, via ``AgentSet.do``;
  - ``"shuffled"``: an order freshly shuffled by the model's generator, via
    ``AgentSet.shuffle_do``;
  - ``"simultaneous"``: every agent's method *returns* its decision, all agents decide
    from the same state, and only then does the model method named by ``apply`` receive
    ``{agent: decision}`` (in seat order) and make the decisions take effect. This is
    Mesa's step/advance idiom with the snapshot enforced: deciding cannot change anything.
  - ``"in turn"``: the agents act one after another, each deciding on the state the earlier
    actions left, in the order the round's rules draw on the model's episode (its batch
    engine's ``InTurnEngine.turn_order``, from ``model.rng``) -- ``PhasedModel.in_turn``;
* :class:`RulePhase` -- a phase of the rules, a method of the game's batch engine played on
  the model's one episode (``model.episode``).

After each ``step()``, ``model.phases_run`` holds the names of the phases that ran, in order.

Seats whose behaviour is ``policy`` decide with the model's ``policy`` parameter (a callable
``observation -> action``, docs/rules/README.md, "Learning agents"): at the start of each
agent phase the game's environment interface names (``Game.interface.phases``), every such
seat observes as the game's PettingZoo environment would show it, and its action is decoded
into the decision the phase asks for. ``advance()`` plays a round only up to such a phase,
so that an environment (``dilemmas.envs.parallel``) can supply the decisions itself; ``step()`` then
finishes the round.

The DataCollector collects after construction and after every step that ran its phases
(``collect_data=False``: no DataCollector, for speed).

``rng`` is None or an integer seed >= 0; None draws a fresh seed from the operating system.
Either way ``model.seed`` is the integer the model's generators (``model.random``,
``model.rng``) were seeded with, so any run can be played again.
A model whose ``running`` is False has finished its episode: ``step()`` runs no phase and
counts no step (``model.steps`` and ``model.time`` stay).
"""

import functools
import inspect
import math
import operator
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import ClassVar

import mesa
import numpy as np

from dilemmas.models.on_arrays import decides_on_arrays
from dilemmas.models.population import parse_population
from dilemmas.registry import registration_of
from dilemmas.models import validation as check
from dilemmas.models.learners import LEARNERS
from dilemmas.models.parameters import Parameters
from dilemmas.models.policies import POLICY, check_action, check_play

ORDERS = ("seat", "shuffled", "simultaneous", "in turn")


@dataclass(frozen=True, slots=True)
class ModelPhase:
    """A phase that calls ``model.<method>()`` (``method`` defaults to ``name``)."""

    name: str
    method: str = ""

    def bind(self, model: mesa.Model) -> Callable[[], None]:
        return getattr(model, self.method or self.name)


@dataclass(frozen=True, slots=True)
class AgentPhase:
    """A phase that calls ``agent.<method>()`` on every agent of ``model.<agents>``."""

    name: str
    method: str
    order: str = "seat"
    apply: str | None = None
    agents: str = "agents"

    def __post_init__(self):
        if self.order not in ORDERS:
            raise ValueError(
                f"phase {self.name!r}: order={self.order!r} is not one of {ORDERS}"
            )
        if (self.order == "simultaneous") != (self.apply is not None):
            raise ValueError(
                f"phase {self.name!r}: a simultaneous phase needs apply= (the model method "
                "that makes the decisions take effect), and only a simultaneous phase has one"
            )

    def bind(self, model: mesa.Model) -> Callable[[], None]:
        method, attribute = self.method, self.agents
        if self.order == "seat":
            return lambda: getattr(model, attribute).do(method)
        if self.order == "shuffled":
            return lambda: getattr(model, attribute).shuffle_do(method)
        if self.order == "in turn":
            name = self.name
            return lambda: model.in_turn(name, method)
        apply, name = getattr(model, self.apply), self.name
        return lambda: apply(model.decisions_of(name, method, getattr(model, attribute)))


@dataclass(frozen=True, slots=True)
class RulePhase:
    """A phase of the rules over arrays, written once, in the game's batch engine: its method
    ``method`` (default ``name``), played by the engine on its episodes and by the model's
    method of the same name on its one episode (``model.episode``, ``BatchEngine.one``),
    after which the model shows the new state on its grid and agents (``model.show()``).
    ``ends``: the method returns the mask of the episodes that end, and the model's
    ``running`` follows its episode."""

    name: str
    method: str = ""
    ends: bool = False

    def bind(self, model: mesa.Model) -> Callable[[], None]:
        return getattr(model, self.method or self.name)

    def played_on(self) -> Callable:
        """The model's method of this phase, named ``method`` (``PhasedModel`` gives one to
        each rule phase its class declares and does not define itself, whatever Mesa's
        ``Model`` has of that name): the phase on the model's episode, then ``show``."""
        method, ends = self.method or self.name, self.ends

        def play(model):
            ended = getattr(model.episode, method)()
            model.show()
            if ends and ended[0]:
                model.running = False

        play.__name__ = method
        play.played_on = True
        play.__doc__ = (f"The rule phase {self.name!r} on the model's episode "
                        f"(``episode.{method}``), then ``show``.")
        return play


def _columns(reporters):
    return dict(reporters) if isinstance(reporters, dict) else {name: name for name in reporters}


def _first_numbers(row: dict) -> dict:
    """Column -> the first episode's value, as a Python number (numpy holds some as Python
    numbers already: State Punishment's exact ``p`` beyond 64 bits)."""
    numbers = {}
    for column, values in row.items():
        value = values[0]
        numbers[column] = value.item() if isinstance(value, np.generic) else value
    return numbers


class Reported:
    """A model reporter of a game whose reporters are array functions: read from the row
    that ``array_reporters`` gives for the inputs of the model's last ``report``, computed
    once, on the first read after that report (a model that sets an attribute of the same
    name itself, such as a counter, is read as it set it)."""

    def __init__(self, column: str):
        self.column = column

    def __get__(self, model, owner=None):
        if model is None:
            return self
        return model.reported()[self.column]


class Live:
    """A model reporter read as the model stands now, mid-round too: from
    ``array_reporters(*model.reporter_inputs())``, computed again only when an input is
    another object (a model whose rules replace its arrays on every change); the row of the
    last ``report`` serves while its inputs are the current ones."""

    def __set_name__(self, owner, name):
        self.column = name

    def __get__(self, model, owner=None):
        if model is None:
            return self
        inputs = model.reporter_inputs()
        if _same(inputs, model._report_inputs):
            return model.reported()[self.column]
        cached = model.__dict__.get("_live")
        if cached is None or not _same(inputs, cached[0]):
            row = type(model).array_reporters(*inputs)
            cached = model._live = (inputs, _first_numbers(row))
        return cached[1][self.column]


def seat_value(field: str, meaning: str, none=None) -> property:
    """An agent's entry of a per-seat array ``field`` ``(1, seats)`` of its model's episode
    (``model.episode``); setting it gives the episode a new array with the entry changed.
    ``none``: the entry that stands for None (read as None, written for None)."""
    def get(agent):
        value = getattr(agent.model.episode, field)[0, agent.seat].item()
        return None if none is not None and value == none else value

    def put(agent, value):
        episode = agent.model.episode
        values = getattr(episode, field).copy()
        values[0, agent.seat] = none if value is None else value
        setattr(episode, field, values)

    return property(get, put, doc=meaning)


def episode_value(field: str, meaning: str, row: bool = True) -> property:
    """A model's view of its episode's array ``field`` (``model.episode``, one episode):
    its one row (``row``), or the array itself; setting it sets the episode's."""
    def get(model):
        value = getattr(model.episode, field)
        return value[0] if row else value

    def put(model, value):
        setattr(model.episode, field, np.asarray(value)[None] if row else value)

    return property(get, put, doc=meaning)


def _same(inputs: tuple, others: tuple) -> bool:
    """Whether two tuples of reporter inputs hold the very same objects (a named tuple of
    arrays, such as a game's ``arrays.State``, compared array by array)."""
    return len(inputs) == len(others) and all(
        a is b or type(a) is type(b) and hasattr(a, "_fields") and len(a) == len(b)
        and all(map(operator.is_, a, b)) for a, b in zip(inputs, others))


class PhasedModel(mesa.Model):
    """A Mesa model whose ``step()`` runs the phases its class declares, in order, and whose
    DataCollector columns are declared too: ``model_reporters`` and ``agent_reporters`` name
    attributes of the model and of its agents, or map a column to the attribute it reads
    (docs/rules/README.md, rule 5)."""

    phases: ClassVar[tuple[ModelPhase | AgentPhase, ...]] = ()
    model_reporters: ClassVar[tuple[str, ...] | dict[str, str]] = ()
    agent_reporters: ClassVar[tuple[str, ...] | dict[str, str]] = ()
    #: The game's parameters, declared once (``dilemmas.models.parameters``).
    parameters: ClassVar[Parameters] = Parameters(())
    #: The game's registration (``dilemmas.registry.Game``), set by ``register``.
    game: ClassVar = None
    #: A game whose model reporters are one array function (its ``arrays.reporters``:
    #: inputs of ``E`` episodes -> column -> ``(E,)`` array) names it here; its model then
    #: calls ``report(*inputs)`` after each round, and each reporter attribute reads it.
    array_reporters: ClassVar = None

    def __init__(self, *, rng=None, collect_data=True):
        self.collect_data = check.boolean("collect_data", collect_data)
        seed = check.seed("rng", rng)
        self.seed = secrets.randbits(63) if seed is None else seed
        super().__init__(rng=self.seed)
        self.phases_run: list[str] = []
        self._bound_from, self._bound_phases, self._deciding = None, [], False
        self._cursor = 0          # the next phase of the round in play (0: between rounds)
        self._supplied = False    # the pending decisions were given by ``supply``
        self._opened = False      # the round in play was opened on ``episode``
        self.datacollector = None
        self.learners = {}        # learning behaviour -> its learner (start_data_collection)

    def __init_subclass__(cls, **kwargs):
        """A game's constructor signature is its declaration: keyword-only parameters with
        the declared defaults, then ``collect_data`` and ``rng`` (for ``inspect``, editor
        help and ``mesa.batch_run``). A model class defined after its game registered it by
        name takes its registration (``dilemmas.registry.registration_of``)."""
        super().__init_subclass__(**kwargs)
        cls.game = registration_of(cls) or cls.game
        for phase in cls.__dict__.get("phases", ()):
            if isinstance(phase, RulePhase) and (phase.method or phase.name) not in cls.__dict__:
                setattr(cls, phase.method or phase.name, phase.played_on())
        if "array_reporters" in cls.__dict__:
            for column, attribute in _columns(cls.model_reporters).items():
                if attribute not in cls.__dict__:
                    setattr(cls, attribute, Reported(column))
        if "parameters" in cls.__dict__:
            keyword = inspect.Parameter.KEYWORD_ONLY
            cls.__signature__ = inspect.Signature(
                [inspect.Parameter(p.name, keyword, default=p.default) for p in cls.parameters]
                + [inspect.Parameter("collect_data", keyword, default=True),
                   inspect.Parameter("rng", keyword, default=None)])

    def check_parameters(self, given: dict) -> SimpleNamespace:
        """Every declared parameter's checked value, in declared order, from ``given`` (the
        constructor's keywords; a missing one takes its default), as attributes of a
        namespace the constructor sets on the model; a keyword not declared is a
        ``TypeError``, a value the declaration refuses a ``ValueError`` naming it."""
        if self.game is None:
            raise TypeError(f"{type(self).__name__} is not a registered game: register it with "
                            "dilemmas.registry.register(Game(...)) (docs/adding-a-game.md)")
        unknown = [name for name in given if name not in self.parameters]
        if unknown:
            raise TypeError(f"{type(self).__name__}() got unexpected keyword argument(s) "
                            f"{', '.join(map(repr, unknown))}; its parameters: "
                            f"{', '.join(self.parameters.names)}")
        return SimpleNamespace(**self.parameters.check(
            given, behaviours=self.game.behaviours, game=self.game.name))

    def set_parameters(self, given: dict) -> SimpleNamespace:
        """``check_parameters(given)``, each value also set on the model, as its declared name
        (or the declaration's ``attribute``)."""
        checked = self.check_parameters(given)
        for parameter in self.parameters:
            setattr(self, parameter.attribute or parameter.name, getattr(checked, parameter.name))
        self._given, self.changes = dict(given), []
        return checked

    def derive(self) -> None:
        """What the model derives from its parameters for the rules (its tables), made at
        its start and again after ``change``; a model that derives nothing has nothing to
        do."""

    def change(self, **values) -> None:
        """Parameters set between two rounds of the episode (docs/rules/README.md, rule 10):
        each must be declared ``between_rounds``; the values are checked beside the model's
        others as at its start, and the next round plays with them (``derive``).
        ``changes`` records each change with the round it came after. Anything else is a
        ``ValueError`` that names it and leaves the model as it was."""
        fixed = [name for name in values if name not in self.parameters
                 or not self.parameters[name].between_rounds]
        if fixed:
            free = [p.name for p in self.parameters if p.between_rounds]
            raise ValueError(
                f"{', '.join(fixed)} cannot change during an episode: the rules fix "
                f"{'it' if len(fixed) == 1 else 'them'} from the episode's start; "
                + (f"those that may change between rounds: {', '.join(free)}" if free
                   else "no parameter of this game may change between rounds"))
        checked = self.check_parameters({**self._given, **values})
        for name in values:
            parameter = self.parameters[name]
            setattr(self, parameter.attribute or name, getattr(checked, name))
        self._given.update(values)
        self.changes.append((self.steps, dict(values)))
        self.derive()

    def report(self, *inputs) -> None:
        """The model reporters are now ``array_reporters(*inputs)`` for this one episode
        (arrays the model no longer changes), computed when first read."""
        self._report_inputs, self._reported = inputs, None

    def reported(self) -> dict:
        """Column -> value (a Python number) of the model reporters as of the last
        ``report``."""
        if self._reported is None:
            row = type(self).array_reporters(*self._report_inputs)
            self._reported = _first_numbers(row)
        return self._reported

    def decisions_of(self, phase: str, method: str, agents) -> dict:
        """Every agent's decision in a simultaneous phase, ``{agent: decision}`` in their
        order: each agent's ``method``; where the model holds its episode on a batch engine
        (``episode``), the seats of behaviours that decide on arrays by one ``batch_decide``
        per behaviour (``BatchEngine.decide``), after the Python behaviours have decided."""
        episode = getattr(self, "episode", None)
        if episode is None:
            return {agent: getattr(agent, method)() for agent in agents}
        python = self._python_agents(agents)
        decided = {agent: getattr(agent, method)() for agent in python}
        if len(python) < len(agents):
            by_seat = self.array_decisions(method, episode.decide(phase))
            if not python:
                return dict(zip(agents, by_seat)) if agents is self.seats \
                    else {agent: by_seat[agent.seat] for agent in agents}
            for agent in agents:
                if agent not in decided:
                    decided[agent] = by_seat[agent.seat]
        return {agent: decided[agent] for agent in agents}

    def _python_agents(self, agents) -> tuple:
        """The agents whose behaviours decide in Python (``decides_on_arrays``)."""
        cached = self.__dict__.get("_python")
        if cached is None or cached[0] is not agents:
            cached = self._python = (agents, tuple(
                agent for agent in agents if not decides_on_arrays(type(agent))))
        return cached[1]

    def in_turn(self, phase: str, method: str) -> None:
        """An ``"in turn"`` phase (``AgentPhase``): the round's rule draws the acting order on
        the model's episode (``InTurnEngine.turn_order``, as the batch engine draws it); at
        each place the agent in that seat, if it can act (``can_act``), decides on the
        state as the earlier actions left it -- a Python behaviour (or an agent whose
        ``method`` was set by hand) by ``method``, an array behaviour by its group's
        ``batch_decide`` with ``acting`` that seat -- and its action takes effect at once
        (the game's ``take_action``, which plays the engine's ``act``)."""
        episode = self.episode
        episode.order = episode.turn_order()
        of_seat = self.__dict__.get("_group_of")
        if of_seat is None or of_seat[0] is not episode.groups:
            of_seat = self._group_of = (episode.groups, {
                seat: group for group in episode.groups for seat in group.seats.tolist()})
        for seat in episode.order[0, :episode.places()].tolist():
            agent = self.seats[seat]
            if not self.can_act(agent):
                continue
            group = of_seat[1][seat]
            if not group.arrays or method in agent.__dict__:
                decision = getattr(agent, method)()
            else:
                episode.acting, episode.deciding = np.array([seat]), True
                try:
                    decided = group.behaviour.batch_decide(episode, group, phase)
                finally:
                    episode.deciding = False
                decision = self.array_decisions(method, decided)[0]
            self.take_action(agent, decision)
        episode.acting = None

    def can_act(self, agent) -> bool:
        """Whether ``agent`` acts at its place in an ``"in turn"`` phase (``in_turn``)."""
        return True

    def end_of_round(self) -> None:
        """After the round's phases, before the DataCollector collects (a model that holds
        its episode on a batch engine reports its state here)."""

    def show(self) -> None:
        """A model that holds its episode on a batch engine (``episode``) shows its state on
        its grid and agents after each rule phase (``RulePhase``)."""

    def behaviour_draw(self, shape) -> np.ndarray:
        """Uniform numbers in [0, 1) of ``shape`` from ``self.random``, in C order: what a
        behaviour's array form draws on the model (``dilemmas.agents.decisions``), one
        ``random()`` a number, as a Python behaviour draws them."""
        random = self.random.random
        return np.array([random() for _ in range(math.prod(shape))]).reshape(shape)

    def seat_behaviours(self, seats: int) -> list[type]:
        """The behaviour class of each of ``seats`` seats, from ``population``."""
        return parse_population(self.population, seats, self.game.behaviours)

    def start_data_collection(self) -> None:
        """The end of a game's ``__init__``: check that ``policy`` seats have a policy, make
        ``self.datacollector`` for the declared columns and collect the state after
        construction; ``step()`` collects after the phases. With ``collect_data=False``,
        ``self.datacollector`` stays None. The learner of each learning behaviour seated is
        ``self.learners[behaviour]``: the ``learner`` parameter if it is of that kind (and
        fits the game), else a fresh one."""
        policy = getattr(self, "policy", None)
        if self.policy_seats() and policy is None:
            raise ValueError(f"population={self.population!r} seats the behaviour 'policy', "
                             "so the model needs policy=: a callable observation -> action or "
                             "a saved policy file (docs/policies.md)")
        self.learners = {}
        given = getattr(self, "learner", None)
        for parameter, value in (("policy", policy), ("learner", given)):
            if hasattr(value, "check_fits"):
                try:
                    value.check_fits(self)
                except ValueError as error:
                    raise ValueError(f"{parameter}: {error}") from None
        check_play(self)
        for behaviour in sorted({agent.behaviour for agent in self.learning_seats()}):
            kind = LEARNERS[behaviour]
            self.learners[behaviour] = given if isinstance(given, kind) else kind.fresh(self)
        if self.collect_data:
            self.datacollector = mesa.DataCollector(
                model_reporters=_columns(self.model_reporters),
                agent_reporters=_columns(self.agent_reporters),
            )
            self.datacollector.collect(self)

    def policy_seats(self) -> list:
        """The seats whose behaviour is ``policy``, in seat order."""
        return [agent for agent in getattr(self, "seats", ()) if agent.behaviour == POLICY]

    def learning_seats(self) -> list:
        """The seats whose behaviour is a learner (``dilemmas.models.learners``), in seat order."""
        return [agent for agent in getattr(self, "seats", ()) if agent.behaviour in LEARNERS]

    def _wrapped_step(self) -> None:
        """Mesa's step (``model.steps`` and ``model.time`` advance by one, then ``step()``),
        except once the episode has ended: a model that has ended counts no step and runs no
        phase (docs/rules/README.md). Mesa 3 calls this for ``model.step()``; Mesa is pinned
        below 4."""
        if self.running or self._cursor:
            super()._wrapped_step()
        else:
            self.phases_run = []

    def step(self) -> None:
        if not self._cursor:
            self.phases_run = []
            if not self.running:
                return
        self._play(stop=False)
        self._cursor, self._opened = 0, False
        self.end_of_round()
        if not self.running and self.learners:
            self._learn_last()
        if self.datacollector:
            self.datacollector.collect(self)

    def advance(self) -> str | None:
        """Play up to the next phase in which ``policy`` seats decide and return its name,
        finishing rounds with ``step()`` on the way; None once the episode has ended."""
        while self._cursor or self.running:
            if not self._cursor:
                self.phases_run = []
            phase = self._play(stop=True)
            if phase is not None:
                return phase
            self.step()
        return None

    def supply(self, decisions: dict) -> None:
        """Give the pending phase's decisions (agent -> the decision its method returns),
        instead of asking ``policy``; ``advance()`` then plays on."""
        for agent, decision in decisions.items():
            agent.decision = decision
        self._supplied = True

    def _bind(self):
        if self._bound_from is not self.phases:
            interface = self.game.interface \
                if self.policy_seats() or self.learning_seats() else None
            deciding = set(interface.phases) if interface else set()
            self._bound_phases = [(phase.name, phase.bind(self), phase.name in deciding)
                                  for phase in self.phases]
            self._deciding = bool(deciding)
            self._bound_from = self.phases
        return self._bound_phases

    def _play(self, stop: bool) -> str | None:
        """Run the round's phases from the cursor; with ``stop``, return at a phase where
        policy seats decide and no decisions were supplied."""
        bound = self._bind()
        if not self._cursor and not self._opened and getattr(self, "episode", None) is not None:
            self.episode.open_round()
            self._opened = True
        if not self._cursor and not self._deciding:  # no seat decides from outside
            for name, run, _ in bound:
                run()
                self.phases_run.append(name)
            self._cursor = len(bound)
            return None
        while self._cursor < len(bound):
            name, run, deciding = bound[self._cursor]
            if deciding:
                if stop and not self._supplied and self.policy_seats():
                    return name  # an environment decides for every policy seat, playing or not
                if not self._supplied:
                    self._decide(name)
                self._supplied = False
                if self.learners:
                    self._learn_and_decide(name)
            run()
            self.phases_run.append(name)
            self._cursor += 1
        return None

    def _decide(self, phase: str) -> None:
        """Each policy seat observes and asks ``policy`` (a decision left over from a turn in
        which the seat could not act is replaced)."""
        interface = self.game.interface
        deciding = interface.deciding(self, self.policy_seats())
        if deciding:
            count = interface.actions(self)
            observations = interface.observe_all(self, deciding, phase)
            decide = getattr(self.policy, "decide", None)
            for agent, observation in zip(deciding, observations):
                action = decide(self, agent, observation) if decide \
                    else self.policy(observation)
                action = check_action(action, count, f"the policy of seat {agent.seat}")
                agent.decision = interface.decode(self, agent, phase, action)

    def _learn_and_decide(self, phase: str) -> None:
        """Each learning seat that decides now learns from its transition since its previous
        decision (the reward it earned in between), then chooses epsilon-greedily."""
        interface = self.game.interface
        deciding = interface.deciding(self, self.learning_seats())
        for agent, observation in zip(deciding, interface.observe_all(self, deciding, phase)):
            learner = self.learners[agent.behaviour]
            inputs, mask = learner.inputs(self, agent, observation), observation["action_mask"]
            if agent.experience is not None:
                learner.update(*agent.experience, agent.reward - agent.paid, inputs, mask)
            action = learner.act(inputs, mask, self.rng)
            agent.experience, agent.paid = (inputs, action), agent.reward
            agent.decision = interface.decode(self, agent, phase, action)

    def _learn_last(self) -> None:
        """The episode has ended: each learning seat learns from its last transition."""
        for agent in self.learning_seats():
            if agent.experience is not None:
                self.learners[agent.behaviour].update(
                    *agent.experience, agent.reward - agent.paid, None, None)
                agent.experience = None


@functools.cache
def round_of(model_class: type) -> tuple[tuple, tuple[str, ...], tuple]:
    """``(rules before, decisions, rules after)``: a model class's declared round
    (``phases``) as its batch engine plays it: the rule phases (``RulePhase``) before its
    first decision phase, the names of its decision phases, and the rule phases after the
    last."""
    phases = model_class.phases
    deciding = [i for i, phase in enumerate(phases) if isinstance(phase, AgentPhase)]
    first, last = (deciding[0], deciding[-1]) if deciding else (len(phases), len(phases))
    rules = lambda part: tuple(p for p in part if isinstance(p, RulePhase))  # noqa: E731
    return rules(phases[:first]), tuple(phases[i].name for i in deciding), rules(phases[last + 1:])
