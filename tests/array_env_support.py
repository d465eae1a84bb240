"""What the tests of the array environments (dilemmas/envs/functional.py and vector.py)
share: configurations, random allowed actions, and a Mesa model put into an episode's
state to observe it with the game's own PettingZoo interface."""

import numpy as np

from dilemmas.models.bucket_brigade.rules import REST, WORK, Night, Observation
from dilemmas.models.stag_hunt import arrays as stag_hunt_arrays
from dilemmas.models.state_punishment.arrays import State

CONFIGS = [
    ("bucket_brigade", {}),
    ("bucket_brigade", {"population": "policy:2,always_work:2"}),
    ("bucket_brigade", {"scenario": "hard", "rules": "reference", "max_steps": 14}),
    ("bucket_brigade", {"num_houses": 3, "num_agents": 5, "population": "policy:3,random:2"}),
    ("firefighting_graph", {"max_steps": 12}),
    ("firefighting_graph", {"layout": "grid", "n_width": 3, "n_height": 2, "max_steps": 8}),
    ("firefighting_graph", {"population": "policy:5,belief_tracker:5", "preset": "oliehoek",
                            "max_steps": 30}),
    ("state_punishment", {"max_steps": 10}),
    ("state_punishment", {"population": "policy:2,civic_voter:1", "action_mode": "composite",
                          "composite_views": True, "num_worlds": 2, "max_steps": 8}),
    ("stag_hunt", {"num_agents_to_spawn": 3, "max_steps": 12, "punish_cooldown": 0,
                   "agent_health": 1, "respawn_lag": 2, "height": 8, "width": 8,
                   "resource_density": 0.4}),
    ("stag_hunt", {"population": "policy:2,cooperator:1", "num_agents_to_spawn": 3,
                   "attack_mode": "beam", "attack_cooldown": 2, "max_steps": 10}),
]
IDS = ["bb", "bb-mixed", "bb-reference", "bb-3-houses", "fg", "fg-grid", "fg-mixed", "sp",
       "sp-mixed", "sh", "sh-mixed"]


def random_allowed(masks, rng) -> np.ndarray:
    """A random allowed action for each row of ``masks`` ``(..., A)``."""
    return np.argmax(rng.random(masks.shape) * masks, axis=-1)


def episode(arrays: dict, e: int) -> dict:
    """Episode ``e``'s engine arrays (each ``(1, ...)``, as the engine holds one episode) from
    a state mapped over episodes."""
    return {name: np.asarray(value[e]) for name, value in arrays.items()}


class Shadow:
    """A Mesa model of a game, put in the state of one episode to observe it with the game's
    PettingZoo interface. For Bucket Brigade the caller says tonight's and last night's
    signals (which the test follows itself)."""

    def __init__(self, game, parameters: dict, seats):
        self.game = game
        self.model = game.model(**{"population": "policy", **parameters}, policy=lambda o: 0,
                                collect_data=False, rng=0)
        self.agents = [self.model.seats[seat] for seat in seats]

    def observe(self, arrays: dict, t: int, phase, tonight=None, last=None) -> list[dict]:
        """The interface's observations of the agents in the episode whose engine arrays are
        ``arrays`` at round ``t``, in ``phase`` (None: after its end)."""
        model = self.model
        if self.game.name == "state_punishment":
            model.state = State(*(arrays[name] for name in State._fields))
            model.show()
        elif self.game.name == "stag_hunt":
            fields = stag_hunt_arrays.State._fields
            model.state = stag_hunt_arrays.State(*(arrays[name] for name in fields))
            model.turn = t
            model.show()
        elif self.game.name == "firefighting_graph":
            model.observations[:] = arrays["observations"][0]
            model.visited[:] = arrays["visited"][0]
            model.levels[:] = arrays["levels"][0]
        else:
            def mode(work):
                return WORK if work else REST

            houses = tuple(map(int, arrays["houses"][0]))
            locations = tuple(map(int, arrays["locations"][0]))
            actions = tuple((house, mode(w))
                            for house, w in zip(locations, arrays["last_work"][0]))
            if phase is None:  # after the last night: the town as it ended
                model.night, model.houses = t, houses
                model.history = [Night(t, houses, tuple(map(mode, tonight)), locations,
                                       actions, ())]
            else:
                heard = tonight if phase == "signal" else last
                model.observation = Observation(
                    t, houses, locations, None if t == 1 else actions,
                    None if t == 1 else tuple(map(mode, heard)),
                    tuple(map(mode, tonight)) if phase == "act" else None)
        return model.game.interface.observe_all(model, self.agents, phase)

    def state(self, arrays: dict, t: int, phase, tonight=None, last=None):
        """The interface's centralised state of that episode."""
        self.observe(arrays, t, phase, tonight, last)
        return self.model.game.interface.state(self.model, phase)


def assert_observed(game, expected: list[dict], vectors, masks=None):
    """``vectors`` ``(agents, L)`` (and ``masks``) are the interface's ``expected``
    observations (State Punishment's last feature is a uniform number each side draws), up to
    float32 rounding of the fractions (XLA divides within an ulp, numpy exactly)."""
    compared = slice(None, -1) if game.name == "state_punishment" else slice(None)
    for j, seen in enumerate(expected):
        vector = np.asarray(vectors[j])
        assert vector.dtype == np.float32 and vector.shape == seen["observation"].shape
        np.testing.assert_allclose(vector[compared], seen["observation"][compared], rtol=1e-6,
                                   atol=0, err_msg=f"agent {j}")
        if masks is not None:
            assert np.array_equal(np.asarray(masks[j]), seen["action_mask"]), j
