"""The Firefighting Graph for learning agents (docs/rules/firefighting_graph.md, "Learning
agents").

An agent's action is the house it visits (0..1 on the row, 0..3 on the grid: its guarded
houses in the rules' order). Its observation is what the Dec-POMDP gives it -- the flames it
saw at the house it visited last step -- together with what it knows without help: its own
last action and which firefighter it is. The vector: none yet / no flames / flames one-hot
(3), its last action one-hot (2 or 4; zeros before the first step), its seat one-hot
(``n_agents``), so that one shared policy can tell the firefighters apart. Longer memory is
the learner's. The
tabular features (``q_learning``) are the seat, the flames seen (0 none yet, 1 no flames, 2
flames) and the last action (``n_actions`` before the first step). The state is every
house's level divided by ``max_fire_level``. The rules end an episode early
when every house is at level 0 (termination); ``max_steps`` truncates it.
"""

import numpy as np

from models.env import Interface


class FirefightingGraphInterface(Interface):
    phases = ("choose",)

    def observation_length(self, model) -> int:
        return 3 + model.n_actions + model.n_agents

    def actions(self, model) -> int:
        return model.n_actions

    def vector(self, model, agent, phase) -> np.ndarray:
        return self.observe_all(model, [agent], phase)[0]["observation"]

    def observe_all(self, model, agents, phase) -> list[dict]:
        if not agents:
            return []
        seats = np.array([agent.seat for agent in agents], dtype=np.int64)
        vectors = np.zeros((len(seats), self.observation_length(model)), dtype=np.float32)
        rows = np.arange(len(seats))
        vectors[rows, 1 + model.observations[seats]] = 1  # -1 (none yet) lands on column 0
        visited = model.visited[seats]
        if visited[0] >= 0:
            choice = np.argmax(model.guarded[seats] == visited[:, None], axis=1)
            vectors[rows, 3 + choice] = 1
        vectors[rows, 3 + model.n_actions + seats] = 1
        mask = self.all_allowed(model)
        return [{"observation": vector, "action_mask": mask} for vector in vectors]

    def feature_names(self, model) -> tuple[str, ...]:
        return ("seat", "flames", "last_action")

    def features(self, model, agent, vector) -> tuple[int, ...]:
        actions = vector[3:3 + model.n_actions]
        last = int(np.argmax(actions)) if actions.any() else model.n_actions
        return agent.seat, int(np.argmax(vector[:3])), last

    def decode(self, model, agent, phase, action):
        return action

    def state(self, model, phase) -> np.ndarray:
        return (model.levels.ravel() / model.max_fire_level).astype(np.float32)

    def ended_by_rules(self, model) -> bool:
        return not model.levels.any()


INTERFACE = FirefightingGraphInterface()
