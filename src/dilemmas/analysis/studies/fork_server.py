"""Imported first by the local pool's fork server when it starts (``runner.play``, which
names its own process in ``DILEMMAS_POOL_PARENT`` for it): on Linux the server is then
killed when that process dies, and so are the workers it forks (each is killed when the
server dies, ``runner._worker_start``): no orphan goes on running after its main process is
killed. A main process killed before this module ran (while the server was starting) has
left the server to another parent: it exits at once, before it imports the games. Imported
anywhere else (the variable unset), it does nothing."""

import ctypes
import os
import signal
import sys

#: The environment variable that names the main process to the fork server it starts.
PARENT = "DILEMMAS_POOL_PARENT"

if PARENT in os.environ and sys.platform.startswith("linux"):
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.environ.pop(PARENT) != str(os.getppid()):
        os._exit(1)
