"""A benchmark's timed regions kept free of JAX compilation.

``with no_compiles("what is timed"): ...`` raises a RuntimeError naming the programs JAX
compiled (or loaded from its persistent cache) inside the block, so that a figure is never
one of compilation: warm up on the very inputs the timed calls see (their shapes, dtypes
and weak types; a jitted function compiles again for another signature). It counts JAX's
``/jax/core/compile/backend_compile_duration`` events (``jax.monitoring``), which every
program built for a ``jit`` cache miss records. Imported by the scripts beside it (run as
``python benchmarks/<name>.py``, whose folder is then on ``sys.path``).
"""

import contextlib

EVENT = "/jax/core/compile/backend_compile_duration"
_compiled: list[str] = []
_listening = False


def _heard(event: str, seconds: float, **kwargs) -> None:
    if event == EVENT:
        _compiled.append(str(kwargs.get("fun_name", "?")))


@contextlib.contextmanager
def no_compiles(what: str):
    """Raise if JAX compiled anything inside the block (module docstring)."""
    global _listening
    if not _listening:
        from jax import monitoring

        monitoring.register_event_duration_secs_listener(_heard)
        _listening = True
    start = len(_compiled)
    yield
    if len(_compiled) > start:
        names = ", ".join(_compiled[start:])
        raise RuntimeError(f"{what}: JAX compiled {len(_compiled) - start} program(s) inside "
                           f"the timed region ({names}); warm up on the inputs the timed "
                           "calls see")
