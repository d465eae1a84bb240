"""State Punishment's rules over arrays of episodes: the round written once, played by the
batch engine on thousands of episodes of one parameter set at once and by
``StatePunishmentModel`` on its one (``model.episode``, ``BatchEngine.one``).

The round is the model's declaration (``StatePunishmentModel.phases``, the phases of the
rules' "Round"): the rule phase ``spawn``; the act phase, in which the agents act one after
another in an order drawn afresh each turn with ``activation="random"`` or in seat order
(``turn_order``), each seeing what the earlier ones did (``act``;
``dilemmas.models.batch.InTurnEngine``); then the rule phase ``log_turn``. Each is a method
here over the rule functions of ``dilemmas.models.state_punishment.arrays``. The model
reporters recorded are the DataCollector's columns, computed by the same function as the
model's (``arrays.reporters``).

At each place of the order, ``batch.acting`` ``(E,)`` is the seat acting in each episode,
and a behaviour's ``batch_decide(batch, group, "act")`` returns the action ``(E,)`` (an index
in ``model.action_names``) of that seat where it is one of ``group.seats`` (other rows are
ignored). It can read ``batch.current`` (the ``arrays.State`` of the episodes), the template
model ``batch.model`` (parameters, ``rules``), ``batch.t``, ``batch.xp`` (numpy or
``jax.numpy``) and ``batch.draw(shape)`` (uniform numbers). Seats whose actions come from
outside (``policy`` seats of an environment) choose at the start of the act phase, as in the
model.
"""

from dilemmas.models.batch import InTurnEngine, gathered
from dilemmas.models.state_punishment import arrays


class StatePunishmentBatch(InTurnEngine):
    game = "state_punishment"
    state = (*arrays.State._fields, "order")

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
        """The episodes at the start ("World"; ``arrays.start``): two numbers per open cell
        of each world (whether a resource lies there, its kind)."""
        model, rules = self.model, self.model.rules
        cells = (self.size, rules.worlds, (rules.height - 2) * (rules.width - 2))
        self.current = arrays.start(rules, model.initial_resources, self.draw(cells),
                                    self.draw(cells))
        self.order = self.xp.zeros((self.size, model.num_agents), dtype=int)

    def blank(self, phase):
        return (self.xp.zeros(self.row.shape, dtype=int),)

    def open_round(self):
        """The turn opens in the round's first rule phase (``spawn``)."""

    # --- Phase 1: spawn ---------------------------------------------------------------
    def spawn(self):
        """"Round", 1: a turn opens; every empty open cell spawns a resource with
        ``spawn_prob``, its kind drawn by ``spawn_weights`` (``arrays.spawn``: two numbers
        per cell)."""
        self.t = self.t + 1
        shape = self.resource.shape
        self.current = arrays.spawn(self.current, self.model.rules, self.draw(shape),
                                    self.draw(shape))

    # --- Phase 2: the agents act one after another --------------------------------------
    def turn_order(self):
        """"Round", 2: a uniformly random order (one number per seat) with
        ``activation="random"``, seat order with ``"sequential"``."""
        xp, model = self.xp, self.model
        if model.activation == "random":
            return xp.argsort(self.draw(self.row.shape), axis=1)
        return xp.broadcast_to(xp.arange(model.num_agents), self.row.shape)

    def places(self) -> int:
        return self.model.num_agents

    def act(self, action):
        """The acting seat's action (``arrays.act``, with its number for a punishment); what
        it did (``arrays.Outcome``)."""
        self.current, outcome = arrays.act(self.current, self.model.rules, self.acting, action,
                                           self.draw(self.acting.shape))
        return outcome

    # --- Phase 3: log -------------------------------------------------------------------
    def log_turn(self):
        """"Round", 3: the turn's counters; the episodes that end (after ``max_steps``
        turns)."""
        self.current = arrays.log(self.current)
        return self.xp.zeros(self.size, dtype=bool) | (self.t >= self.model.max_steps)

    def model_row(self) -> dict:
        return arrays.reporters(self.t, self.current, self.model.denominator)

    def agent_row(self) -> dict:
        return {name: getattr(self, name) for name in ("reward", "collected", "votes_up",
                                                       "votes_down", "harm_received")}
