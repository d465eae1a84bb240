"""The ``policy`` behaviour, shared by every game: a seat played by the model's ``policy``.

At the start of each phase in which it decides, the model shows the seat its observation
(as the game's PettingZoo environment would), asks ``policy`` for an action and decodes it
into the decision the phase asks for, which it keeps in the seat's ``decision``
(``dilemmas.models.phases``); the seat's decision methods are ``take_decision``. A PettingZoo
environment supplies the decisions itself (``dilemmas.envs.parallel``). Each game's ``PolicyAgent``
subclasses the game's own agent, so it is laid out like the game's other behaviours.
"""


def take_decision(agent):
    """The decision set for this phase (and forgets it)."""
    decision, agent.decision = agent.decision, None
    return decision
