"""Which behaviour classes decide on arrays: those a batch plays with their ``batch_decide``
(all episodes' seats of the behaviour at once), as opposed to those it plays in Python,
episode by episode (``dilemmas.models.episode_models``). Asked by the Mesa model's round
(``dilemmas.models.phases``), the batch engine (``dilemmas.models.batch``) and the
functional environment."""


def off_arrays(behaviour: type) -> str | None:
    """Why a behaviour class cannot play in a batch (None: it can). It can when it has
    ``batch_decide`` and no class from itself up to the one that defines ``batch_decide``
    defines a method of its own: a subclass that changes any decision, a helper its
    decisions call or its constructor without its own ``batch_decide`` would be played as
    its parent, so it plays on the Mesa model (docs/how-to/add-a-behaviour.md)."""
    owner = next((cls for cls in behaviour.__mro__ if "batch_decide" in vars(cls)), None)
    if owner is None:
        return (f"behaviour {behaviour.behaviour!r} ({behaviour.__qualname__}) decides in "
                "Python only (it has no batch_decide)")
    for cls in behaviour.__mro__[:behaviour.__mro__.index(owner)]:
        changed = sorted(name for name, value in vars(cls).items()
                         if _is_method(name, value))
        if changed:
            return (f"behaviour {behaviour.behaviour!r} ({behaviour.__qualname__}) changes "
                    f"{', '.join(changed)} of {owner.__qualname__} in {cls.__qualname__} "
                    "without its own batch_decide")
    return None


def _is_method(name: str, value) -> bool:
    """Whether a class attribute is behaviour (a function, property or other descriptor, the
    constructor included) rather than data such as ``behaviour`` or ``params``."""
    if name.startswith("__") and name != "__init__" or isinstance(value, type):
        return False
    return callable(value) or hasattr(value, "__get__")


def decides_on_arrays(behaviour: type) -> bool:
    """Whether a behaviour class can play in a batch (``off_arrays`` says why not)."""
    return off_arrays(behaviour) is None
