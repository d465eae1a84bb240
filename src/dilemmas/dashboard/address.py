"""The page's address: what is shown, in the URL, so that a reload, a bookmark or a link
shows the same thing (docs/how-to/dashboard.md).

``/?game=bucket_brigade&seed=7&num_agents=5&population=firefighter:3,free_rider:2`` plays
Bucket Brigade from seed 7 with the parameters named (the others at their defaults);
``/?mode=runs`` is the run viewer. A parameter's value is written as its text field shows it
and read back the same way (``dilemmas.dashboard.controls.as_text``, ``from_text``): a
number, a Python literal such as ``(1, 2, 1, 1, 1)``, or text. The address is where these
settings live: a control changes them by going to a new address (Back goes to the last), and
what the address holds that the page cannot use is said in one line (``Address.problem``);
the model's own checks say what is wrong with a value, beside its control.
"""

from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode

from dilemmas.dashboard.controls import as_text, from_text

MODES = ("play", "runs")
#: The seed of a page whose address names none.
SEED = 1
#: Keys of the address that are not the game's parameters.
KEYS = ("mode", "game", "seed")


@dataclass(frozen=True)
class Address:
    """What the page shows: the mode, the game (a name of ``dilemmas.GAMES``), the seed
    as given (an int, or the text typed if it is none), the parameters set (name -> value)
    and what the address held that could not be used (one line, or None)."""

    game: str
    mode: str = "play"
    seed: object = SEED
    given: dict = field(default_factory=dict)
    problem: str | None = None

    def with_(self, **changes) -> "Address":
        return Address(**{**self.__dict__, "problem": None, **changes})

    def url(self) -> str:
        """The address as the page's path (``/?...``); the game, seed and parameters are
        kept while the run viewer is shown, for the way back."""
        query = {"mode": self.mode} if self.mode != "play" else {}
        query["game"] = self.game
        if type(self.seed) is not int or self.seed != SEED:
            query["seed"] = as_text(self.seed)
        query.update({name: as_text(value) for name, value in self.given.items()})
        return "/?" + urlencode(query)


def read(search: str | None, games) -> Address:
    """The address of ``search`` (the URL's query, without ``?``) for the registered
    ``games`` (name -> ``Game``): an unknown mode, game or parameter is left out and said
    in ``problem``."""
    pairs = parse_qsl(search or "", keep_blank_values=True)
    problems = []
    values = {}
    for key, text in pairs:
        if key in values:
            problems.append(f"{key!r} is given twice (the last is used)")
        values[key] = text
    mode = values.pop("mode", "play")
    if mode not in MODES:
        problems.append(f"mode={mode!r} is not one of {', '.join(MODES)}")
        mode = "play"
    name = values.pop("game", None)
    first = next(iter(games))
    if name is None:
        name = first
    elif name not in games:
        problems.append(f"game={name!r} is not a game here (one of {', '.join(games)})")
        name = first
    seed = values.pop("seed", None)
    seed = SEED if seed is None else from_text(seed)
    parameters = games[name].parameters
    unknown = [key for key in values if key not in parameters]
    if unknown:
        problems.append(f"{games[name].title} has no parameter "
                        + ", ".join(repr(key) for key in unknown))
    given = {key: from_text(text) for key, text in values.items() if key in parameters}
    problem = ("the address: " + "; ".join(problems) + " (not used)") if problems else None
    return Address(name, mode, seed, given, problem)
