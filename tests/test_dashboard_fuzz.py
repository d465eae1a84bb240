"""No combination of the dashboard's controls ends in a traceback: whatever values the
controls hand over, ``dilemmas.dashboard.play.build`` gives a model or a one-line message, and every
model it gives is drawn, keyed, plotted and stepped without raising (``dilemmas.dashboard.play``,
``dilemmas.dashboard.panels``)."""

import math

import pytest
import solara
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dilemmas.dashboard.charts import chart
from dilemmas.dashboard.controls import Controls, from_text, problem, shown_values
from dilemmas.dashboard.play import build
from dilemmas.dashboard.scene import to_svg
from dilemmas import GAMES

SERVED = [name for name, game in GAMES.items() if game.model.__module__.startswith("dilemmas.")]


def values_for(parameter):
    """Values a control could hand over for ``parameter``: its own kind's range and beyond,
    and what a text field makes of typed text."""
    numbers = st.one_of(st.integers(-5, 60), st.sampled_from([0, 1, 2, 3, 10**7]),
                        st.floats(-2, 2), st.sampled_from([math.nan, math.inf, -0.0]))
    typed = st.sampled_from(["", "abc", "(1, 2)", "[1, 2, 3, 4]", "ABD", "None", "1e9",
                             "{'a': 1}", "/no/such/file.npz", "-1"]).map(from_text)
    options = list(getattr(parameter.kind, "options", ()) or ())
    mixes = list(getattr(parameter.control, "values", ()) or ())
    choices = st.sampled_from(options + mixes) if options or mixes else st.nothing()
    return st.one_of(numbers, typed, st.booleans(), choices, st.none())


@st.composite
def settings_of(draw, game):
    names = draw(st.lists(st.sampled_from(game.parameters.names), min_size=1, max_size=3,
                          unique=True))
    return {name: draw(values_for(game.parameters[name])) for name in names}


@pytest.mark.parametrize("name", SERVED)
@settings(max_examples=250, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_values_give_a_model_or_a_one_line_message(name, data):
    game = GAMES[name]
    chosen = data.draw(settings_of(game))
    model, fault = build(game, chosen, seed=data.draw(st.integers(0, 999)))
    if model is None:
        where, message = fault
        assert message and "\n" not in message and "Traceback" not in message
        assert where is None or where in game.parameters
        return
    shown_values(game, chosen)
    view = game.view
    for _ in range(2):
        assert to_svg(view.scene(model)).startswith("<svg")
        view.key(model)
        view.status(model)
        for plot in view.plots:
            high = plot.high(model) if callable(plot.high) else None
            assert chart(plot, model.datacollector.model_vars, game.round,
                         high=high).startswith("<svg")
        if model.running:
            model.step()


@pytest.mark.parametrize("name", SERVED)
@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_controls_render_whatever_the_values(name, data):
    game = GAMES[name]
    chosen = data.draw(settings_of(game))

    @solara.component
    def Form():
        Controls(game, chosen, lambda name, value: None, problem(game, chosen))

    box, rc = solara.render(Form(), handle_error=False)
    rc.close()
