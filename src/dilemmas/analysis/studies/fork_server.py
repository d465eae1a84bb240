"""Imported by the local pool's fork server when it starts (``runner.play``): on Linux the
server is then killed when the process that started it dies, and so are the workers it
forks (each is killed when the server dies, ``runner._worker_start``): no orphan goes on
running after its main process is killed."""

import ctypes
import signal
import sys

if sys.platform.startswith("linux"):
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
