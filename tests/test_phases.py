"""The shared phase schedule (dilemmas/models/phases.py), on a toy model with no game in it."""

import mesa
import pytest

from dilemmas.models.phases import AgentPhase, ModelPhase, PhasedModel


class Recorder(mesa.Agent):
    def __init__(self, model, value):
        super().__init__(model)
        self.value = value

    def act(self):
        self.model.calls.append(("act", self.value))

    def shuffled(self):
        self.model.calls.append(("shuffled", self.value))

    def decide(self):
        # Reads shared state that apply_all changes: only a true snapshot gives equal reads.
        return self.model.total + self.value


class Toy(PhasedModel):
    phases = (
        ModelPhase("begin"),
        AgentPhase("in_seats", "act"),
        AgentPhase("shuffled", "shuffled", order="shuffled"),
        AgentPhase("together", "decide", order="simultaneous", apply="apply_all"),
        AgentPhase("evens_only", "act", agents="evens"),
        ModelPhase("end", method="finish"),
    )

    def __init__(self, n=5, rng=None):
        super().__init__(rng=rng)
        self.calls, self.total, self.applied = [], 0, []
        for value in range(n):
            Recorder(self, value)
        self.evens = self.agents.select(lambda a: a.value % 2 == 0)

    def begin(self):
        self.calls.append(("begin", None))

    def apply_all(self, decisions):
        self.applied.append(list(decisions.items()))
        for decision in decisions.values():
            self.total += decision

    def finish(self):
        self.calls.append(("end", None))


def test_step_runs_declared_phases_in_order_and_records_them():
    model = Toy(rng=1)
    model.step()
    assert model.phases_run == ["begin", "in_seats", "shuffled", "together", "evens_only", "end"]
    kinds = [kind for kind, _ in model.calls]
    assert kinds == ["begin"] + ["act"] * 5 + ["shuffled"] * 5 + ["act"] * 3 + ["end"]


def test_seat_order_is_creation_order_every_step():
    model = Toy(rng=1)
    for _ in range(3):
        model.calls.clear()
        model.step()
        assert [v for kind, v in model.calls[1:6]] == [0, 1, 2, 3, 4]


def test_shuffled_order_is_a_fresh_permutation_from_the_models_generator():
    def orders(seed):
        model = Toy(n=6, rng=seed)
        seen = []
        for _ in range(30):
            model.calls.clear()
            model.step()
            seen.append(tuple(v for kind, v in model.calls if kind == "shuffled"))
        return seen

    seen = orders(7)
    assert all(sorted(order) == list(range(6)) for order in seen)
    # 30 draws from 720 permutations: all equal with probability 720**-29.
    assert len(set(seen)) > 1
    assert orders(7) == seen  # same seed, same orders
    assert orders(8) != seen


def test_simultaneous_phase_decides_from_one_snapshot_then_applies_in_seat_order():
    model = Toy(n=4, rng=1)
    model.total = 10
    model.step()
    decisions = model.applied[0]
    assert [agent.value for agent, _ in decisions] == [0, 1, 2, 3]
    # Every agent saw total == 10, though applying changes it: 10+0, 10+1, ...
    assert [decision for _, decision in decisions] == [10, 11, 12, 13]
    assert model.total == 10 + 46


def test_agent_phase_on_a_subset_named_by_the_model():
    model = Toy(n=5, rng=1)
    model.step()
    evens = [v for kind, v in model.calls[-4:-1]]
    assert evens == [0, 2, 4]


def test_a_finished_model_runs_no_phase():
    model = Toy(rng=1)
    model.running = False
    model.step()
    assert model.phases_run == [] and model.calls == []


@pytest.mark.parametrize("kwargs, message", [
    (dict(order="sideways"), "order='sideways'"),
    (dict(order="simultaneous"), "needs apply="),
    (dict(order="seat", apply="x"), "needs apply="),
])
def test_bad_phase_declarations_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        AgentPhase("p", "act", **kwargs)
