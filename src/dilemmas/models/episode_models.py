"""The Mesa model of each episode of a block, for the seats whose behaviour decides in Python.

A batch engine (``dilemmas.models.batch``) plays a round's rule phases once for all its
episodes, and each behaviour with an array form (``batch_decide``) decides for all of them at
once. A behaviour that decides in Python (its ``choose_signal`` / ``choose_action``, or a
subclass of a built-in that changes a decision: ``off_arrays``) decides episode by episode,
through the game's own Mesa model of that episode (``EpisodeModels``):

* the model is built with the block's parameters and its run's seed, so the behaviour's draws
  (``self.model.random``, ``self.model.rng``) are its run's, whatever block it plays in;
* before each of its decisions the model's episode (``model.episode``) holds the block's row
  of that episode (views of the block's arrays) and shows it on the grid and the agents
  (``model.show``): ``self.model``, its grid and cells, the other agents and
  ``model.observation`` read as in a lone model, at the same point of the round;
* what a decision sets by hand (an agent moved, a house or a cell changed) goes back to the
  block's row before the rules play on;
* the model's rule phases do nothing on its episode (the block plays them); what the model
  records beside them does run: the model's own methods of a rule phase (Bucket Brigade's
  ``observe`` writes ``model.observation``), its phases' ``apply`` (Bucket Brigade's
  ``reveal_signals`` adds the night's signals), ``end_of_round`` (Bucket Brigade's
  ``history``); the per-action logs of an "in turn" phase (State Punishment's ``history``,
  Stag Hunt's ``defeats``) are the exception: a block's episode models do not keep them.

A behaviour that keeps state across episodes, or otherwise needs one model at a time, says so
with the class attribute ``one_model = True`` (docs/how-to/add-a-behaviour.md): the block
path refuses it (``off_blocks``) and it plays on one model at a time.
"""

import operator

import numpy as np

from dilemmas.models.phases import AgentPhase, round_of
from dilemmas.models.policies import POLICY

#: Behaviours that decide by the model's own machinery, not by their decision methods.
MACHINERY = {POLICY: "plays the model's policy (studies of policy files stay on the model "
                       "while the scenarios' stored baselines are the model's)",
             "q_learning": "learns while it plays (tabular training)",
             "linear_q": "learns while it plays (linear Q-learning)"}


def off_blocks(behaviour: type) -> str | None:
    """Why a behaviour class cannot play in a block of the batch engine at all, neither on
    arrays nor through its episode's model (None: it can)."""
    name = behaviour.behaviour
    if name in MACHINERY:
        return f"behaviour {name!r} {MACHINERY[name]}"
    if getattr(behaviour, "one_model", False):
        return (f"behaviour {name!r} ({behaviour.__qualname__}) declares one_model = True "
                "(it needs one model at a time)")
    return None


def _played_on(model_class: type, method: str) -> bool:
    """Whether the model's method of a rule phase is only the phase on its episode (made by
    ``RulePhase.played_on``), not the model's own."""
    return getattr(getattr(model_class, method, None), "played_on", False)


class EpisodeModels:
    """The Mesa model of each episode of ``engine`` (a block played on numpy), for its seats
    whose behaviours decide in Python (module docstring). ``seeds``: each episode's run seed.

    The engine calls ``opened()`` after the rule phases before the first decision,
    ``decide(phase, decided)`` in a simultaneous phase, ``act(phase, action)`` at each place
    of an "in turn" phase, and ``closed(ended)`` after the round's last rule phase. A game
    with an "in turn" phase gives its model ``prepare_action(agent, decision)``: the
    decision checked, as the engine's action number, the episode made ready for it (what its
    ``take_action`` does before the action takes effect)."""

    def __init__(self, engine, seeds):
        from dilemmas.registry import GAMES

        self.engine = engine
        game, model_class = GAMES[engine.game], type(engine.model)
        self.models = [game.model(**engine.parameters, collect_data=False, rng=int(seed))
                       for seed in seeds]
        before, _, after = round_of(model_class)
        self.own_before = [p.method or p.name for p in before
                           if not _played_on(model_class, p.method or p.name)]
        self.own_after = [p.method or p.name for p in after
                          if not _played_on(model_class, p.method or p.name)]
        self.phases = {p.name: p for p in model_class.phases if isinstance(p, AgentPhase)}
        self.seats = np.concatenate([g.seats for g in engine.groups if not g.arrays])
        self.python = np.zeros(len(engine.model.seats), dtype=bool)
        self.python[self.seats] = True
        self.running = np.ones(len(self.models), dtype=bool)
        self.row, self.decided, self.taken = 0, None, None
        state = engine.state
        self._state_of = operator.itemgetter(*state) if len(state) > 1 else \
            lambda held: (held[state[0]],)
        self.rules = {p.method or p.name for p in (*before, *after)}
        for r, model in enumerate(self.models):
            self._hold(model)
            engine.load(model, {"t": engine.t, **{name: getattr(engine, name)[r]
                                                  for name in engine.state}})
            model._opened = False

    def _hold(self, model) -> None:
        """The model's episode no longer plays the rules: its rule phases do nothing, its
        decisions are the block's row's and what it takes is kept for the block."""
        model._block_phases = {phase: run for phase, run, _ in model._bind()}
        episode = model.episode
        for method in self.rules:
            episode.__dict__[method] = _nothing
        episode.open_round = _nothing
        episode.decide = lambda phase, supplied=None: tuple(
            d[self.row:self.row + 1] for d in self.decided)
        episode.take = self._keep_taken
        episode.act = self._keep_taken

    def _keep_taken(self, *arguments):
        self.taken = arguments[-1]

    def live(self):
        """``(row, model)`` of each episode still playing, by its row in the engine."""
        engine, running = self.engine, self.running
        return [(r, self.models[e]) for r, e in enumerate(engine.ids.tolist()) if running[e]]

    def _rows(self) -> tuple[list[str], list]:
        """``(names, rows)``: the engine's per-episode arrays (its state, and what a round
        keeps beside it for the model to record, such as Bucket Brigade's
        ``night_rewards``) and each episode's rows of them as read-only views ``(1, ...)``
        (the rules never change an array in place, and neither may a decision); the same
        list as before while the engine holds the same arrays."""
        engine, size = self.engine, self.engine.size
        arrays = {name: value for name, value in vars(engine).items()
                  if name != "ids" and isinstance(value, np.ndarray) and value.ndim
                  and value.shape[0] == size}
        last = self.__dict__.get("_last")
        if last is not None and last[0].keys() == arrays.keys() \
                and all(a is b for a, b in zip(last[0].values(), arrays.values())):
            return last[1], last[2]
        rows = []
        for value in arrays.values():
            value = value[:, None]
            value.flags.writeable = False
            rows.append(list(value))
        names = list(arrays)
        self._last = (arrays, names, list(zip(*rows)))
        return names, self._last[2]

    def _show(self, r: int, model, names, rows) -> tuple:
        """Row ``r`` of the engine on ``model``'s episode, shown (unless it holds these rows
        already); ``(state arrays now, layers)`` for ``_back``: the layers are the arrays of
        the model's grid that ``show`` put in the place of a view."""
        episode = model.episode
        self.row = r
        if model.__dict__.get("_block_rows") is not rows:
            held = episode.__dict__
            held.update(zip(names, rows[r]))
            model._block_rows = rows
            model.show()
            layered = model.__dict__.get("_block_layered")
            if layered is None:  # the fields show puts its grid's layers in: the same always
                layered = model._block_layered = [
                    name for name, view in zip(names, rows[r])
                    if name in self.engine.state and held[name] is not view]
            model._block_seen = (self._state_of(held), {name: held[name] for name in layered})
        return model._block_seen

    def _back(self, r: int, model, seen: tuple) -> None:
        """What a Python decision (or record) set by hand on ``model``'s episode goes back to
        the engine's row ``r``: an array it replaced, or a layer changed in place."""
        engine, held = self.engine, model.episode.__dict__
        before, layers = seen
        changed = False
        for name, then in zip(engine.state, before):
            now = held[name]
            if now is then and (name not in layers
                                or now.tobytes() == getattr(engine, name)[r].tobytes()):
                continue
            whole = np.array(getattr(engine, name))
            whole[r] = now[0]
            setattr(engine, name, whole)
            changed = True
        if changed:
            model._block_rows = None

    def opened(self) -> None:
        """A round has opened and its rule phases before the decisions have played: each
        model records what it records beside them (its own methods of those phases)."""
        seen, t = self._rows(), self.engine.t
        for r, model in self.live():
            model._opened = True
            model.episode.t, model.steps, model.time = t, int(t), float(t)
            shown = self._show(r, model, *seen)
            if self.own_before:
                for method in self.own_before:
                    getattr(model, method)()
                self._back(r, model, shown)

    def decide(self, phase: str, decided: tuple) -> tuple:
        """A simultaneous phase: ``decided`` (the array behaviours' decisions, ``(episodes,
        seats)`` each) with each Python seat's decision of each live episode, decided on its
        model by the phase as the model plays it (the agents' method, then ``apply``, whose
        ``take`` is kept here)."""
        seen, seats = self._rows(), self.seats
        self.decided = decided
        rows, taken = [], []
        for r, model in self.live():
            shown = self._show(r, model, *seen)
            model._block_phases[phase]()
            self._back(r, model, shown)
            rows.append(r)
            taken.append(self.taken)
        if not rows:
            return decided
        rows = np.array(rows)
        out = []
        for k, target in enumerate(decided):
            values = np.concatenate([np.asarray(t[k]) for t in taken])
            whole = np.array(target)
            whole[rows[:, None], seats] = values[:, seats]
            out.append(whole)
        return tuple(out)

    def act(self, phase: str, action: np.ndarray) -> np.ndarray:
        """A place of an "in turn" phase: ``action`` ``(episodes,)`` with the action of each
        live episode whose acting seat decides in Python, by its agent's method on its model
        (an agent that cannot act, ``can_act``, keeps the engine's)."""
        engine = self.engine
        acting = engine.acting
        if not self.python[acting].any():
            return action
        seen, method = self._rows(), self.phases[phase].method
        action = np.array(action)
        for r, model in self.live():
            seat = int(acting[r])
            if not self.python[seat]:
                continue
            shown = self._show(r, model, *seen)
            agent = model.seats[seat]
            if model.can_act(agent):
                action[r] = model.prepare_action(agent, getattr(agent, method)())
            self._back(r, model, shown)
        return action

    def closed(self, ended) -> None:
        """The round's last rule phase has played: each model records the round (its own
        methods of the phases after the decisions, ``end_of_round``); an episode that ended
        is no longer played."""
        seen, ids = self._rows(), self.engine.ids
        for r, model in self.live():
            shown = self._show(r, model, *seen)
            for method in self.own_after:
                getattr(model, method)()
            model._opened = False
            model.end_of_round()
            if self.own_after:
                self._back(r, model, shown)
            if ended is not None and ended[r]:
                model.running = False
                self.running[ids[r]] = False


def _nothing(*arguments):
    return np.zeros(1, dtype=bool)
