"""State Punishment's batch engine: thousands of episodes of one parameter set at once.

The turns are played by the same rule functions as ``StatePunishmentModel``'s
(``dilemmas.models.state_punishment.arrays``), over every episode, in the phases of the
rules' "Round": spawn, act (the agents one after another, in an order drawn afresh each turn
with ``activation="random"`` or in seat order), log. The model reporters recorded are the
DataCollector's columns, computed by the same function as the model's (``arrays.reporters``).
Shared mechanism: ``dilemmas.models.batch``.

In the act phase the agents act one after another, each seeing what the earlier ones did:
at each place of the order, ``batch.acting`` ``(E,)`` is the seat acting in each episode,
and a behaviour's ``batch_decide(batch, group, "act")`` returns the action ``(E,)`` (an index
in ``model.action_names``) of that seat where it is one of ``group.seats`` (other rows are
ignored). It can read ``batch.current`` (the ``arrays.State`` of the episodes), the template
model ``batch.model`` (parameters, ``rules``), ``batch.xp`` (numpy or ``jax.numpy``) and
``batch.draw(shape)`` (uniform numbers). Seats whose actions come from outside (``policy``
seats of an environment) choose at the start of the act phase, as in the model.
"""

from dilemmas.models.batch import InTurnEngine, gathered
from dilemmas.models.state_punishment import arrays


class StatePunishmentBatch(InTurnEngine):
    game = "state_punishment"
    state = (*arrays.State._fields, "order")
    decisions = ("act",)

    @classmethod
    def refusal(cls, model):
        """``p`` is held in 32-bit integers (JAX's), where ``p`` plus a vote step, up to twice
        the denominator, must fit."""
        if model.denominator > 2**30:
            return (f"initial_punishment={model.initial_punishment!r} and vote_step="
                    f"{model.vote_step!r} hold p in units of 1/{model.denominator}, more than "
                    "32-bit integers count")
        return None

    current = gathered(arrays.State)

    @property
    def rewards(self):
        """Each agent's cumulative reward ``(E, k)``."""
        return self.reward

    def setup(self):
        model, rules = self.model, self.model.rules
        cells = (self.size, rules.worlds, (rules.height - 2) * (rules.width - 2))
        self.current = arrays.start(rules, model.initial_resources, self.draw(cells),
                                    self.draw(cells))
        self.order = self.xp.zeros((self.size, model.num_agents), dtype=int)

    def blank(self, phase):
        return (self.xp.zeros(self.row.shape, dtype=int),)

    def begin_round(self):
        """spawn: the turn opens, resources grow; the order of the act phase is drawn."""
        super().begin_round()
        xp, model = self.xp, self.model
        shape = self.resource.shape
        self.current = arrays.spawn(self.current, model.rules, self.draw(shape),
                                    self.draw(shape))
        if model.activation == "random":
            self.order = xp.argsort(self.draw(self.row.shape), axis=1)
        else:
            self.order = xp.broadcast_to(xp.arange(model.num_agents), self.row.shape)

    def places(self) -> int:
        return self.model.num_agents

    def act(self, action):
        """The acting seat's action (``arrays.act``, with its number for a punishment)."""
        return arrays.act(self.current, self.model.rules, self.acting, action,
                          self.draw(self.acting.shape))[0]

    def resolve(self):
        """log; the episodes that end (after ``max_steps`` turns)."""
        self.current = arrays.log(self.current)
        return self.xp.zeros(self.size, dtype=bool) | (self.t >= self.model.max_steps)

    def model_row(self) -> dict:
        return arrays.reporters(self.t, self.current, self.model.denominator)

    def agent_row(self) -> dict:
        return {name: getattr(self, name) for name in ("reward", "collected", "votes_up",
                                                       "votes_down", "harm_received")}

    def load(self, model, state):
        """Turn ``t``'s ``arrays.State`` as ``StatePunishmentModel`` holds it (one episode),
        shown by its grids and agents (``model._show``), and its reporters."""
        model.turn = state["t"]
        model.state = arrays.State(*(state[name][None] for name in arrays.State._fields))
        model._show()
        model._report()
