"""The phase schedule every game shares: a model declares its phases as data.

docs/rules/README.md, rule 2: the documented phase order is enforced by one mechanism,
``step()`` runs the declared phases in that order, and the sequence actually run is
observable. A game's parameters are declared next to its phases (``parameters``,
``models/parameters.py``); ``set_parameters(locals())`` checks and sets them all.

A subclass of :class:`PhasedModel` lists its round as ``phases``, a tuple of the following
(a model may replace its class's tuple in ``__init__``, e.g. to pick an order from a
parameter):

* :class:`ModelPhase` -- calls a method of the model;
* :class:`AgentPhase` -- calls a method on a set of agents, in one of three orders:

  - ``"seat"``: seat (creation) order, via ``AgentSet.do``;
  - ``"shuffled"``: an order freshly shuffled by the model's generator, via
    ``AgentSet.shuffle_do``;
  - ``"simultaneous"``: every agent's method *returns* its decision, all agents decide
    from the same state, and only then does the model method named by ``apply`` receive
    ``{agent: decision}`` (in seat order) and make the decisions take effect. This is
    Mesa's step/advance idiom with the snapshot enforced: deciding cannot change anything.

After each ``step()``, ``model.phases_run`` holds the names of the phases that ran, in order.

The DataCollector collects after construction and after every step that ran its phases
(``collect_data=False``: no DataCollector, for speed).

``rng`` is None or an integer seed >= 0; None draws a fresh seed from the operating system.
Either way ``model.seed`` is the integer the model's generators (``model.random``,
``model.rng``) were seeded with, so any run can be played again.
A model whose ``running`` is False has finished its episode: ``step()`` runs no phase.
"""

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import mesa

from agents.population import parse_population
from models import validation as check
from models.parameters import Parameters

ORDERS = ("seat", "shuffled", "simultaneous")


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
        apply = getattr(model, self.apply)
        return lambda: apply({agent: getattr(agent, method)()
                              for agent in getattr(model, attribute)})


def _columns(reporters):
    return dict(reporters) if isinstance(reporters, dict) else {name: name for name in reporters}


class PhasedModel(mesa.Model):
    """A Mesa model whose ``step()`` runs the phases its class declares, in order, and whose
    DataCollector columns are declared too: ``model_reporters`` and ``agent_reporters`` name
    attributes of the model and of its agents, or map a column to the attribute it reads
    (docs/rules/README.md, rule 5)."""

    phases: ClassVar[tuple[ModelPhase | AgentPhase, ...]] = ()
    model_reporters: ClassVar[tuple[str, ...] | dict[str, str]] = ()
    agent_reporters: ClassVar[tuple[str, ...] | dict[str, str]] = ()
    #: The game's parameters, declared once (``models.parameters``).
    parameters: ClassVar[Parameters] = Parameters(())
    #: The game's registration (``models.registry.Game``), set by ``register``.
    game: ClassVar = None

    def __init__(self, *, rng=None, collect_data=True):
        self.collect_data = check.boolean("collect_data", collect_data)
        seed = check.seed("rng", rng)
        self.seed = secrets.randbits(63) if seed is None else seed
        super().__init__(rng=self.seed)
        self.phases_run: list[str] = []
        self._bound_from, self._bound_phases = None, []
        self.datacollector = None

    def set_parameters(self, given) -> dict:
        """Check every declared parameter's value in ``given`` (the constructor's
        ``locals()``), in declared order, and set each on the model (as its ``attribute``
        where one is declared); returns the checked values."""
        if self.game is None:
            raise TypeError(f"{type(self).__name__} is not a registered game: register it with "
                            "models.registry.register(Game(...)) (docs/adding-a-game.md)")
        values = self.parameters.check(given, behaviours=self.game.behaviours)
        for parameter in self.parameters:
            setattr(self, parameter.attribute or parameter.name, values[parameter.name])
        return values

    def seat_behaviours(self, seats: int) -> list[type]:
        """The behaviour class of each of ``seats`` seats, from ``population``."""
        return parse_population(self.population, seats, self.game.behaviours)

    def start_data_collection(self) -> None:
        """Make ``self.datacollector`` for the declared columns and collect the state after
        construction (the end of a game's ``__init__``); ``step()`` collects after the
        phases. With ``collect_data=False``, ``self.datacollector`` stays None."""
        if self.collect_data:
            self.datacollector = mesa.DataCollector(
                model_reporters=_columns(self.model_reporters),
                agent_reporters=_columns(self.agent_reporters),
            )
            self.datacollector.collect(self)

    def step(self) -> None:
        self.phases_run = []
        if not self.running:
            return
        if self._bound_from is not self.phases:
            self._bound_phases = [(phase.name, phase.bind(self)) for phase in self.phases]
            self._bound_from = self.phases
        for name, run in self._bound_phases:
            run()
            self.phases_run.append(name)
        if self.datacollector:
            self.datacollector.collect(self)
