"""The controls of a game's parameters, made from its one declaration
(``dilemmas.models.parameters``): every declared parameter can be set.

A parameter's control is the one it declares (``Slider``, ``Select``, ``Text``) or, if it
declares none, the one its kind calls for: a slider for a probability, a check box for a
boolean, a drop-down for a choice, and a text field (``dilemmas.dashboard.field``) for
anything else: a number, a list, a set of letters or a structured value, read as a Python
literal (``12``, ``(1, 2, 1, 1, 1)``); text that is no literal is kept as text; an empty
field is None. A text field that takes a file (``policy``, ``learner``) offers the files it
may read (``Text.files``: the packaged bots, the trained seeds' files under
``results/training``) and refuses any other path before anything reads it, so that no
link makes the server read a file of its choosing. A behaviour mix is typed (any mix the game takes) or picked from the
declared mixes that fit. Parameters with a declared control come first; the rest are under
"All parameters". Under each control, a line says what the parameter means and allows (its
declaration); one the model does not use with the other values now (``When``) is greyed and
says so.

The form holds only what the user set (``given``): an untouched parameter is left to the
model, so a parameter whose default is None because it follows a table (Bucket Brigade's
``beta`` follows ``scenario``) keeps following it and shows the table's value. A slider's
bound that names another parameter takes that parameter's current value, and the behaviour
mixes offered are those whose seats add up to the current number of agents. Whatever the
model would refuse is said in one line beside the control at fault (``problem``). The values
set live in the page's address (``dilemmas.dashboard.address``): a control changes them with
``change(name, value)``.
"""

import ast
import math
from collections.abc import Mapping

import solara

from dilemmas.dashboard.field import Field
from dilemmas.dashboard.messages import message, one_line
from dilemmas.models.parameters import (Boolean, Choice, Population, Probability, Select, Slider,
                                        Text)


def shown_value(game, given: Mapping, name: str):
    """The value a control shows: the one set, else the default, else (for a default of
    None that follows a table) the value in the table's entry chosen now."""
    parameter = game.parameters[name]
    if name in given:
        return given[name]
    if parameter.default is None and parameter.table is not None:
        key, table = parameter.table
        try:
            return table[shown_value(game, given, key)][name]
        except (KeyError, TypeError):  # no such entry: the form says so beside its control
            return None
    return parameter.default


def shown_values(game, given: Mapping) -> dict:
    return {name: shown_value(game, given, name) for name in game.parameters.names}


def offered_files(game, parameter) -> list[str]:
    """The files a text field offers and the page may read for it (``Text.files``)."""
    control = parameter.control
    if not isinstance(control, Text) or control.files is None:
        return []
    try:
        return list(control.files(game.name))
    except OSError:  # a folder that cannot be read offers nothing
        return []


def problem(game, given: Mapping) -> tuple[str | None, str] | None:
    """``(parameter name or None, message)`` for the first thing the declaration refuses
    in ``given``, or None. The message is the model's own ``ValueError``, or says that a
    text field was given a file's path (a ``str`` with no line break) that is not one of
    the files it offers (``Text.files``): such a value is refused before anything reads it."""
    for name, value in given.items():
        parameter = game.parameters[name] if name in game.parameters else None
        control = parameter.control if parameter is not None else None
        if isinstance(control, Text) and isinstance(value, str) and "\n" not in value \
                and value not in offered_files(game, parameter):
            if control.files is None:
                return name, (f"{name}={value!r} is refused: the page reads no file named "
                              "in its address or fields; give the value itself, as text "
                              "with its line breaks")
            return name, (f"{name}={value!r} is refused: the page reads only the files it "
                          f"lists for {name} ({control.listed}); pick one of them")
    try:
        game.parameters.check(given, behaviours=game.behaviours, game=game.name)
    except Exception as error:  # whatever a check raises is said, never shown as a traceback
        return blame(game, str(error)), one_line(error)
    return None


def blame(game, message: str) -> str | None:
    """The parameter a message is about: the one it starts with (``name=...``, ``name:``)."""
    head = message.split("=", 1)[0].split(":", 1)[0].split("[", 1)[0].strip()
    return head if head in game.parameters else None


def as_text(value) -> str:
    """A value as its text field shows it."""
    if value is None:
        return ""
    return value if isinstance(value, str) else repr(value)


def from_text(text: str | None):
    """A text field's value: None if empty, a Python literal if it is one, else the text."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        return ast.literal_eval(text)
    except Exception:  # not a literal (or one Python cannot build, e.g. {[]: 1}): the text
        return text


def mixes(game, values: Mapping, parameter=None) -> list[str]:
    """The declared behaviour mixes of ``parameter`` (default: ``population``) whose seats
    add up to the number of agents now; none while that number is not a sensible count (a
    mix is not built for it)."""
    parameter = parameter or game.parameters["population"]
    count = parameter.kind.count
    try:
        seats = count(values) if callable(count) else values[count]
    except Exception:
        return []
    if type(seats) is not int or not 1 <= seats <= MAX_SEATS:
        return []
    offered = []
    for mix in parameter.control.values:
        try:
            parameter.kind.check("population", mix, {**values, "behaviours": game.behaviours})
        except (ValueError, TypeError, KeyError):
            continue
        offered.append(mix)
    return offered


#: Mixes are offered for at most this many seats (more is refused by every game).
MAX_SEATS = 100_000
#: How a drop-down shows None (e.g. Stag Hunt's ``attack_mode``: the attack flags decide).
NONE = "None"


def _bound(bound, values):
    value = values[bound] if isinstance(bound, str) else bound
    return value if _finite(value) else 0


def _finite(value) -> bool:
    """A number a slider can show (a value typed elsewhere may be anything)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


#: Why a parameter's control is greyed while a run plays (docs/rules/README.md, rule 10).
FIXED = ("Fixed while the run plays: it shapes the episode from its start (Pause, then "
         "change it to start the episode again). ")


def help_text(parameter, values: Mapping, playing: bool = False) -> str:
    """The line under a control: what the parameter means, what it allows and, while the
    model does not use it or a run plays and it may not change between rounds, why (its
    declaration, ``dilemmas.models.parameters``)."""
    text = f"{parameter.meaning}. Allowed: {parameter.allowed()}".replace("`", "")
    if not parameter.is_used(values):
        text = f"Not used now (used only with {parameter.used_text()}). ".replace("`", "") + text
    if playing and not parameter.between_rounds:
        text = FIXED + text
    return text


@solara.component
def Control(game, parameter, given: Mapping, change, fault: str | None, playing: bool = False):
    """The control of one parameter (module docstring), with ``fault`` beside it and its
    help below; ``change(name, value)`` sets it; while a run plays (``playing``), greyed
    unless it may change between rounds."""
    values = shown_values(game, given)
    value, name = values[parameter.name], parameter.name
    control, kind = parameter.control, parameter.kind
    unused = not parameter.is_used(values) or (playing and not parameter.between_rounds)

    def set_to(new):
        change(name, new)

    slider = isinstance(control, Slider) or (control is None and isinstance(kind, Probability))
    if slider and _finite(value):
        low, high, step = ((_bound(control.low, values), _bound(control.high, values),
                            control.step) if control else (0.0, 1.0, 0.01))
        if isinstance(step, float):
            solara.SliderFloat(f"{name} = {value:g}", value=float(value), min=low, max=high,
                               step=step, on_value=set_to, thumb_label=True, disabled=unused)
        else:
            solara.SliderInt(f"{name} = {value}", value=int(value), min=low, max=max(low, high),
                             step=step, on_value=set_to, thumb_label=True, disabled=unused)
    elif isinstance(kind, Population) and control is not None:
        Mix(game, parameter, values, set_to, fault, disabled=unused)
        fault = None  # said by the mix's own field
    elif isinstance(control, Select) or (control is None and isinstance(kind, Choice)):
        options = list((control.values if control else ()) or kind.options)
        if parameter.default is None:  # None means what the description says
            options = [NONE, *options]
        solara.Select(name, values=options, value=NONE if value is None else value,
                      on_value=lambda new: set_to(None if new == NONE else new),
                      classes=[f"control-{name}"], disabled=unused)
    elif control is None and isinstance(kind, Boolean) and isinstance(value, bool):
        solara.Checkbox(label=name, value=bool(value), on_value=set_to, disabled=unused)
    else:
        Field(name, as_text(value), lambda text: set_to(from_text(text)), disabled=unused,
              classes=[f"control-{name}"])
        files = offered_files(game, parameter)
        if files:
            solara.Select(f"{name}: a file listed", values=files,
                          value=value if value in files else None, on_value=set_to,
                          classes=[f"files-{name}"], dense=True, disabled=unused)
    if fault:
        message(fault, "control-message")
    solara.Text(help_text(parameter, values, playing), classes=["control-help"])


@solara.component
def Mix(game, parameter, values: Mapping, set_to, fault: str | None, disabled: bool = False):
    """A behaviour mix: typed (``firefighter:2,free_rider:2``; Enter sets it), ``fault``
    said under it, or picked from the declared mixes that fit the number of agents now."""
    name, value = parameter.name, values[parameter.name]
    Field(name, as_text(value), lambda text: set_to(from_text(text)),
          classes=[f"control-{name}"], disabled=disabled)
    if fault:
        message(fault, "control-message")
    offered = mixes(game, values, parameter)
    if offered:
        solara.Select(f"{name}: a declared mix", values=offered,
                      value=value if value in offered else None, on_value=set_to,
                      classes=[f"mixes-{name}"], dense=True, disabled=disabled)


@solara.component
def Controls(game, given: Mapping, change, fault: tuple | None, playing: bool = False):
    """Every parameter's control: the declared ones, then the rest under "All parameters";
    ``fault`` is ``(name, message)`` from ``problem`` or the model, shown beside the control
    it names (its panel opens to show it); one that names none is the page's to show. While
    a run plays (``playing``), only the parameters that may change between rounds can be
    set."""
    name, message = fault if fault else (None, None)
    declared = [p for p in game.parameters if p.control is not None]
    rest = [p for p in game.parameters if p.control is None]
    for parameter in declared:
        Control(game, parameter, given, change, message if name == parameter.name else None,
                playing)
    with solara.Details("All parameters", expand=name in {p.name for p in rest}):
        with solara.Column(gap="0px", classes=[f"parameters-{game.name}"]):
            for parameter in rest:
                Control(game, parameter, given, change,
                        message if name == parameter.name else None, playing)
