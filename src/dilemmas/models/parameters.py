"""A game's parameters, declared once as data (docs/rules/README.md, rule 7).

Each game's model module lists its parameters as :class:`Parameter` records in a
:class:`Parameters` table: name, default, kind (what values are allowed), a one-line
description and, optionally, how the dashboard shows it (:class:`Slider`, :class:`Select`).
From that one declaration come

* the constructor's validation: ``PhasedModel.set_parameters`` checks every parameter in
  declared order and sets it on the model, and each ``ValueError`` names the parameter, the
  value and what is allowed;
* ``dilemmas games GAME`` (``Parameters.describe``);
* the dashboard's controls (``dilemmas.dashboard.controls``);
* the study-file checks (``dilemmas.analysis.studies.study``).

A kind's bound may name an earlier parameter (``Integer(low=1, high="num_agents")``), and a
parameter whose default is None may take its value from a named table
(``table=("scenario", SCENARIOS)``: None means "the named scenario's value"). Checks that
join several parameters in ways a bound cannot say (a map too small for its agents) stay in
the model and raise the same kind of ``ValueError``.

The constructors keep their keyword parameters with real defaults, so ``Model()``,
``mesa.batch_run`` and editor help work; the contract suite checks that the signature and
the declaration agree.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dilemmas.models.population import parse_population
from dilemmas.models import validation as check

#: The most rounds any game's episode may last (``max_steps``, and the cooldowns and delays
#: counted in rounds): every accepted configuration plays its episode in bounded time.
MAX_STEPS = 1_000_000


def _bound(bound) -> str:
    """A bound as the tables print it: a number with thousands separators, a parameter's
    name in backticks."""
    if isinstance(bound, str):
        return f"`{bound}`"
    return f"{bound:,}" if isinstance(bound, int) else str(bound)


def _range(low, high) -> str:
    """"from low to high", ">= low", "<= high" or "" (no bound), bounds as ``_bound``."""
    return check.range_text(*(None if b is None else _bound(b) for b in (low, high)))


def _resolve(bound, values: Mapping):
    """A bound given as the name of an earlier parameter takes that parameter's value."""
    return values[bound] if isinstance(bound, str) else bound


# --- Kinds: what values a parameter allows -------------------------------------------------

@dataclass(frozen=True)
class Integer:
    """An integer in [low, high]; either bound may be open or name an earlier parameter."""

    low: int | str | None = None
    high: int | str | None = None

    def check(self, name, value, values):
        return check.integer(name, value, low=_resolve(self.low, values),
                             high=_resolve(self.high, values))

    def allowed(self) -> str:
        return f"integer {_range(self.low, self.high)}".strip()


#: The largest magnitude a real parameter may take unless its declaration says otherwise:
#: rewards are sums of a few hundred weighted terms per step over at most a few thousand
#: steps, so no accepted weight can overflow a reward (docs/rules/README.md).
LIMIT = 1_000_000


@dataclass(frozen=True)
class Real:
    """A finite number in [low, high]; an unstated bound is -``LIMIT`` or ``LIMIT``."""

    low: float | None = -LIMIT
    high: float | None = LIMIT

    def check(self, name, value, values):
        return check.real(name, value, low=self.low, high=self.high)

    def allowed(self) -> str:
        return f"finite number {_range(self.low, self.high)}".strip()


@dataclass(frozen=True)
class Probability:
    """A probability in [0, 1]."""

    def check(self, name, value, values):
        return check.probability(name, value)

    def allowed(self) -> str:
        return "probability in [0, 1]"


@dataclass(frozen=True)
class Boolean:
    """True or False."""

    def check(self, name, value, values):
        return check.boolean(name, value)

    def allowed(self) -> str:
        return "`True` or `False`"


@dataclass(frozen=True)
class Choice:
    """One of the names in ``options`` (a tuple, or the keys of a mapping)."""

    options: tuple

    def check(self, name, value, values):
        return check.choice(name, value, self.options)

    def allowed(self) -> str:
        return "one of " + ", ".join(f"`{option}`" for option in self.options)


@dataclass(frozen=True)
class Population:
    """The behaviour of each seat: comma-separated ``name`` or ``name:count`` entries whose
    counts add up to the parameter named ``count``, or to ``count(values)`` where the number
    of seats follows from several parameters (docs/rules/README.md, rule 3); ``seats`` then
    says what that number is."""

    count: str | Callable
    seats: str = "the number of agents"

    def check(self, name, value, values):
        seats = self.count(values) if callable(self.count) else values[self.count]
        parse_population(value, seats, values["behaviours"])
        return value

    def allowed(self) -> str:
        seats = self.seats if callable(self.count) else f"`{self.count}`"
        return ("behaviour mix: comma-separated `name` or `name:count` entries of the "
                "behaviours listed below, each count a whole number >= 1, a bare name counting "
                "1 seat (a single bare name fills every seat); counts add up to " + seats)


@dataclass(frozen=True)
class Reals:
    """A list or tuple of ``length`` finite numbers (``length`` may name an earlier
    parameter), each in [low, high] (an unstated bound is -``LIMIT`` or ``LIMIT``)."""

    length: int | str
    low: float | None = -LIMIT
    high: float | None = LIMIT

    def check(self, name, value, values):
        numbers = check.reals(name, value, _resolve(self.length, values), low=self.low)
        return tuple(check.real(f"{name}[{i}]", x, low=self.low, high=self.high)
                     for i, x in enumerate(numbers))

    def allowed(self) -> str:
        each = _range(self.low, self.high)
        return (f"a list, tuple or 1-D array of {_bound(self.length)} finite numbers"
                + (f", each {each}" if each else ""))


@dataclass(frozen=True)
class Subset:
    """A set of the one-letter names in ``letters`` ("ABD" or a list of letters)."""

    letters: str

    def check(self, name, value, values):
        return check.subset(name, value, self.letters)

    def allowed(self) -> str:
        return (f"any set of letters from `{self.letters[0]}`..`{self.letters[-1]}` (possibly "
                f"empty), as a string such as `\"{self.letters[:2]}\"` or a tuple, list, set "
                "or frozenset of one-letter strings")


@dataclass(frozen=True)
class Custom:
    """A value checked by the game's own function ``check(name, value, values)``, for
    structured values (a map, a list of per-agent settings); ``text`` says what is allowed
    and ``invalid`` gives examples of values the check rejects at the defaults of the other
    parameters (for readers, and for the contract suite)."""

    function: Callable
    text: str
    invalid: tuple = ()

    def check(self, name, value, values):
        return self.function(name, value, values)

    def allowed(self) -> str:
        return self.text


# --- How the dashboard shows a parameter ---------------------------------------------------

@dataclass(frozen=True)
class Slider:
    """A slider from ``low`` to ``high`` by ``step`` (a float step: a float slider); a bound
    may name another parameter, whose default it then takes."""

    low: float | str
    high: float | str
    step: float = 1


@dataclass(frozen=True)
class Select:
    """A drop-down of ``values`` (default: the kind's choices)."""

    values: tuple = ()


@dataclass(frozen=True)
class Text:
    """A text field (left empty: None). A value the model would read as a file's path (a
    ``str`` with no line break) is one of ``files(game)`` (the files the dashboard offers
    for it, ``listed`` saying which they are) or refused by the dashboard before anything
    reads it, so that no link makes the server read a file of its choosing; with ``files``
    None (Stag Hunt's ``ascii_map``, given as the map's text) every such value is refused."""

    files: Callable | None = None
    listed: str = ""


@dataclass(frozen=True)
class When:
    """A parameter used only while the parameter ``name`` takes one of ``values``
    (the Firefighting Graph's ``n_agents`` with ``layout = "row"``); it is still checked
    while unused, and the dashboard greys its control."""

    name: str
    values: tuple

    def holds(self, values: Mapping) -> bool:
        return values.get(self.name) in self.values

    def text(self) -> str:
        return " or ".join(f"`{self.name}={value!r}`" for value in self.values)


# --- Declarations --------------------------------------------------------------------------

@dataclass(frozen=True)
class Parameter:
    """One parameter of a game (module docstring).

    ``optional=True``: None is allowed and kept (it means what the description says).
    ``requires``: what the model checks of it beside other parameters, in words (a check a
    bound cannot say, docs/rules/README.md, rule 7), shown after what its kind allows.
    ``used``: when the model uses it, if not always: the conditions (:class:`When`) that
    must all hold. ``attribute``: the model's attribute that holds it (``set_parameters``),
    if not its name (one Mesa's ``Model`` has already). ``between_rounds``: the rules read it
    afresh each round and no part of the state depends on it, so ``model.change`` may set it
    between two rounds of an episode (docs/rules/README.md, rule 10).
    """

    name: str
    default: Any
    kind: Any
    description: str
    control: Slider | Select | Text | None = None
    table: tuple[str, Mapping] | None = None
    optional: bool = False
    requires: str = ""
    used: tuple[When, ...] = ()
    attribute: str = ""
    between_rounds: bool = False

    @property
    def meaning(self) -> str:
        """The description, and whether it may change between rounds."""
        return self.description + (" (may change between rounds)" if self.between_rounds
                                   else "")

    def is_used(self, values: Mapping) -> bool:
        """Whether the model uses this parameter beside the other ``values``."""
        return all(when.holds(values) for when in self.used)

    def used_text(self) -> str:
        """When the model uses it, in words ("" if always)."""
        return " and ".join(when.text() for when in self.used)

    def check(self, value, values: Mapping):
        """The value the model keeps, or a ``ValueError`` naming the parameter."""
        if value is None and self.table is not None:
            key, table = self.table
            value = table[values[key]][self.name]
        if value is None and self.optional:
            return None
        return self.kind.check(self.name, value, values)

    def allowed(self) -> str:
        text = self.kind.allowed()
        if self.table is not None:
            text = f"`None` (the named `{self.table[0]}`'s value) or {text}"
        elif self.optional and not text.startswith("`None`"):
            text = f"`None` or {text}"
        return text + (f"; also {self.requires}" if self.requires else "")


@dataclass(frozen=True)
class Parameters:
    """A game's parameters, in the order of its constructor's signature."""

    declared: tuple[Parameter, ...]
    by_name: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "by_name", {p.name: p for p in self.declared})

    def __iter__(self):
        return iter(self.declared)

    def __getitem__(self, name) -> Parameter:
        return self.by_name[name]

    def __contains__(self, name) -> bool:
        return name in self.by_name

    def __len__(self) -> int:
        return len(self.declared)

    @property
    def names(self) -> list[str]:
        return list(self.by_name)

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.declared}

    def check(self, given: Mapping, **context) -> dict:
        """Every declared parameter's checked value, in declared order; ``given`` maps names
        to values (missing ones take their default); ``context`` holds what a check may
        need besides earlier parameters (the game's ``behaviours``)."""
        values = dict(context)
        for parameter in self.declared:
            name = parameter.name
            value = given.get(name, parameter.default)
            values[name] = (parameter.kind.check(name, value, values) if value is not None
                            else parameter.check(value, values))
        for name in context:
            del values[name]
        return values

    def start_value(self, name: str):
        """The value a control starts from: the default, or for a None that means a table's
        value, the value in the table's default entry."""
        parameter = self[name]
        if parameter.default is None and parameter.table is not None:
            key, table = parameter.table
            return table[self[key].default][name]
        return parameter.default

    def describe(self) -> list[tuple[str, str, str, str]]:
        """``(name, default, allowed, description)`` of each parameter, for listings; a None
        default that means a table's value shows the value it takes in the table's default
        entry (``None (scenario 'default': 0.25)``)."""
        rows = []
        for p in self.declared:
            default = repr(p.default)
            if p.default is None and p.table is not None:
                key = p.table[0]
                default += f" ({key} {self[key].default!r}: {self.start_value(p.name)!r})"
            rows.append((p.name, default, p.allowed(), p.meaning))
        return rows

    def markdown(self) -> str:
        """The "Parameters" table of the game's rules document (docs/rules/README.md, rule 7):
        one row per parameter, ``| `name` | `default` | allowed | meaning |``, generated from
        this declaration (``python -m dilemmas.cli.describe`` writes it into the rules)."""
        rows = ["| parameter | default | allowed | meaning |", "|---|---|---|---|"]
        rows += [f"| `{p.name}` | `{p.default!r}` | {p.allowed()} | {p.meaning} |"
                 for p in self.declared]
        return "\n".join(rows) + "\n"
