"""The ``policy`` behaviour, shared by every game: a seat played by the model's ``policy``.

At the start of each phase in which it decides, the model shows the seat its observation
(as the game's PettingZoo environment would), asks ``policy`` for an action and decodes it
into the decision the phase asks for, which it keeps in the seat's ``decision``
(``dilemmas.models.phases``); the seat's decision methods are ``take_decision``. A PettingZoo
environment supplies the decisions itself (``dilemmas.envs.parallel``). Each game's ``PolicyAgent``
subclasses the game's own agent, so it is laid out like the game's other behaviours; it and
the learners' classes are made once for every game (``policy_behaviours``).
"""

from dilemmas.models.policies import POLICY


def take_decision(agent):
    """The decision set for this phase (and forgets it)."""
    decision, agent.decision = agent.decision, None
    return decision


def policy_behaviours(base: type, module: str) -> tuple[type, type, type]:
    """A game's ``policy`` seat and its two learners, written once for every game, as
    subclasses of the game's agent class ``base`` (laid out like its other behaviours):
    ``PolicyAgent`` plays the model's ``policy`` (docs/policies.md), each of ``base``'s
    decision methods (``base.decisions``) being ``take_decision``; ``QLearningAgent``
    (tabular Q-learning over the game's features) and ``LinearQAgent`` (Q-learning linear in
    the observation vector) learn from their own rewards (docs/learning.md). ``module``: the
    game's agents module, which binds the three under these names."""
    def made(name, bases, doc, **attributes):
        return type(name, bases, {"__module__": module, "__qualname__": name, "__doc__": doc,
                                  **attributes})

    policy = made("PolicyAgent", (base,), "Plays the model's ``policy`` (docs/policies.md).",
                  behaviour=POLICY, decision=None,
                  **dict.fromkeys(base.decisions, take_decision))
    q_learning = made("QLearningAgent", (policy,), "Learns by tabular Q-learning over the "
                      "game's features, from its own rewards (docs/learning.md).",
                      behaviour="q_learning", experience=None, paid=0.0)
    linear_q = made("LinearQAgent", (policy,), "Learns by Q-learning linear in its "
                    "observation vector, from its own rewards (docs/learning.md).",
                    behaviour="linear_q", experience=None, paid=0.0)
    return policy, q_learning, linear_q
