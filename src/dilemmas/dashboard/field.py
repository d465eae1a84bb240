"""A text field whose text reaches the server with the event that commits it.

Solara's ``InputText`` (and ``InputInt``, ``InputFloat``) syncs the typed text as widget
state and reads it on Enter or when the field loses focus; the browser's widget library
holds state back while an earlier message is unanswered, but sends events at once, so on a
busy server an Enter, or a click on a button after typing, could be handled before the text
arrived: the old text was used (a run id typed, Enter, Open: the empty id was opened). Here
the typed text travels inside the commit event itself (``field.vue``), and messages of one
page are handled in the order sent.
"""

from collections.abc import Callable

import solara


@solara.component_vue("field.vue")
def _TextField(label: str, value: str, disabled: bool, classes: list,
               event_commit: Callable[[str], None]):
    pass


def Field(label: str, value: str = "", on_commit: Callable[[str], None] | None = None,
          disabled: bool = False, classes: tuple = ()):
    """A text field labelled ``label`` showing ``value``; ``on_commit(text)`` when Enter is
    pressed or the field is left with text other than the last committed."""
    return _TextField(label=label, value=value, disabled=disabled, classes=list(classes),
                      event_commit=on_commit or (lambda text: None))
