"""Behaviours registered for the session reach every worker process.

docs/how-to/add-a-behaviour.md registers a behaviour for a session with
``GAMES[game].behaviours[name] = cls``, in a script, a function or a notebook cell. A worker
process (a study's local pool, spawned or started by a fork server; a Dask worker;
``dilemmas.batch_run``'s pool) imports ``dilemmas`` afresh and would not know it. So a
function sent to workers is wrapped (``with_session_behaviours``): the behaviours of every
registered game whose classes are not the package's own travel with it, by value where they
cannot be imported (defined in ``__main__``, a notebook or a function: cloudpickle, as Dask
pickles its tasks) and by reference where they can, and each worker registers them before
it plays. A class cloudpickle cannot send is refused before anything plays, in one line
naming the behaviour.
"""

import importlib

import cloudpickle

from dilemmas.registry import GAMES

#: The digests of the behaviour tables this process registered already.
_registered: set[int] = set()


def session_behaviours() -> dict[str, dict[str, type]]:
    """Game -> behaviour name -> class, of the registered behaviours that are not the
    package's own (``dilemmas.*``)."""
    table = {}
    for name, game in GAMES.items():
        own = {behaviour: cls for behaviour, cls in game.behaviours.items()
               if not cls.__module__.startswith("dilemmas.")}
        if own:
            table[name] = own
    return table


def packed() -> bytes | None:
    """``session_behaviours()`` pickled for the workers, each class on its own (None: there
    are none); a ``ValueError`` names a behaviour whose class cannot be sent."""
    table = session_behaviours()
    if not table:
        return None
    sent = {game: {} for game in table}
    modules = {game: GAMES[game].model.__module__ for game in table}
    for game, behaviours in table.items():
        for name, cls in behaviours.items():
            try:
                sent[game][name] = cloudpickle.dumps(cls)
            except Exception as error:
                raise ValueError(
                    f"behaviour {name!r} of {game} ({cls.__qualname__}) cannot be sent to the "
                    f"worker processes ({type(error).__name__}: {error}); define it in an "
                    "importable module, or play on one process (backend='serial', "
                    "number_processes=1)") from None
    return cloudpickle.dumps((modules, sent))


def register(blob: bytes | None) -> None:
    """Register the behaviours of ``packed()`` in this process (once per table); a
    ``RuntimeError`` names a behaviour this process cannot load, so the call that sent it
    fails rather than its runs."""
    if blob is None or hash(blob) in _registered:
        return
    modules, sent_of = cloudpickle.loads(blob)
    for game, behaviours in sent_of.items():
        if game not in GAMES and modules[game] != "__main__":
            importlib.import_module(modules[game])  # a game of another package registers
        if game not in GAMES:
            raise RuntimeError(f"the session's behaviours of {game!r} were sent to a worker "
                               "that has no such game registered")
        for name, sent in behaviours.items():
            try:
                GAMES[game].behaviours[name] = cloudpickle.loads(sent)
            except Exception as error:
                raise RuntimeError(
                    f"behaviour {name!r} of {game}, registered for the session, cannot be "
                    f"loaded in a worker process ({type(error).__name__}: {error}); make its "
                    "module importable there, or play on one process") from None
    _registered.add(hash(blob))


class WithSessionBehaviours:
    """``function`` that registers the session's behaviours first: what a worker runs."""

    def __init__(self, function, blob: bytes):
        self.function, self.blob = function, blob

    def __call__(self, *arguments):
        register(self.blob)
        return self.function(*arguments)


def with_session_behaviours(function):
    """``function`` for a worker process: itself where the session registered no behaviour
    of its own, else ``WithSessionBehaviours``."""
    blob = packed()
    return function if blob is None else WithSessionBehaviours(function, blob)
