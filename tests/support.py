"""Helpers shared by the games' tests."""

import math

import ipywidgets

SIGMAS = 4


def assert_rate(hits, n, p, what):
    """``|hits/n - p| <= 4 * sqrt(p(1-p)/n)``: the share of ``n`` Bernoulli(p) trials lies
    within 4 binomial standard errors of ``p`` (a false alarm about 6e-5 of the time for a
    correct model; exact when p is 0 or 1)."""
    p_hat = hits / n
    band = SIGMAS * math.sqrt(p * (1 - p) / n)
    assert abs(p_hat - p) <= band, (
        f"{what}: observed {p_hat:.5f} over {n} trials, expected {p:.5f} +- {band:.5f}")


def population_string(seats, style=0):
    """A valid ``population`` for the seat list: runs of equal names as ``name:count``
    (``style`` 0), or with a run of one written as a bare ``name`` (style 1), which counts as
    one seat when there are several entries; a single run may also be the bare name alone,
    which fills every seat."""
    runs = []
    for name in seats:
        if runs and runs[-1][0] == name:
            runs[-1][1] += 1
        else:
            runs.append([name, 1])
    if len(runs) == 1:
        return runs[0][0] if style else f"{runs[0][0]}:{runs[0][1]}"
    return ",".join(name if (style and count == 1) else f"{name}:{count}"
                    for name, count in runs)


def widgets_under(widget):
    """Every widget in a rendered Solara tree, including the items of Mesa's grid layout."""
    yield widget
    for name in ("children", "items"):
        for child in getattr(widget, name, None) or ():
            if isinstance(child, ipywidgets.Widget):
                yield from widgets_under(child)


#: The last ``DashboardAt``'s way to another address (as the browser's Back button goes).
GO_TO = [None]


def DashboardAt(path: str = "/", addresses: list | None = None):
    """The dashboard's page under a router, as ``solara run`` serves it: its address starts
    at ``path`` and a control's change goes to a new one (each appended to ``addresses``)."""
    import solara
    import solara.routing as routing

    from dilemmas.dashboard import app

    @solara.component
    def Root():
        where, go = solara.use_state(path)
        GO_TO[0] = go
        if addresses is not None and (not addresses or addresses[-1] != where):
            addresses.append(where)
        routing.router_context.provide(routing.Router(where, routes=app.routes, set_path=go))
        with solara.AppLayout():
            app.Page()

    return Root()
