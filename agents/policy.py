"""The ``policy`` behaviour, shared by every game: a seat played by the model's ``policy``.

At the start of each phase in which it decides, the model shows the seat its observation
(as the game's PettingZoo environment would), asks ``policy`` for an action and decodes it
into the decision the phase asks for (``models.phases``); the seat's decision methods return
that decision. A PettingZoo environment supplies the decisions itself (``models.env``).
"""

from typing import ClassVar


class PolicyBehaviour:
    """Plays the model's ``policy`` (docs/policies.md)."""

    behaviour: ClassVar[str] = "policy"
    decision = None

    def take_decision(self):
        """The decision set for this phase (and forgets it)."""
        decision, self.decision = self.decision, None
        return decision
