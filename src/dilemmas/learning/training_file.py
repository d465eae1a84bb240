"""Which training a training file holds: the one reader that ``dilemmas train``,
``evaluate`` and ``psro`` call, above the three kinds of training it dispatches to (a
tabular or linear learners' ``Training``, a ``deep.DeepTraining``, a
``sweeps.TrainingSweep``)."""

import tomllib

from dilemmas.analysis.learning.training import Training, TrainingError
from dilemmas.learning.deep import DeepTraining
from dilemmas.learning.sweeps import TrainingSweep
from dilemmas.models.files import read_bytes


def read_training(path):
    """A training file's ``DeepTraining`` (``algorithm = "ippo"`` or ``"mappo"``), with a
    ``[sweep]`` table its ``sweeps.TrainingSweep``, or, without an ``algorithm``, its tabular
    or linear learners' ``Training``."""
    try:
        data = tomllib.loads(read_bytes(path).decode("utf-8"))
    except (OSError, ValueError):
        data = {}  # Training.from_file names the problem
    if "sweep" in data:
        if data.get("algorithm") is None:
            raise TrainingError(f"training file {str(path)!r}: [sweep] sweeps deep trainings "
                                "(algorithm = \"ippo\" or \"mappo\"); a tabular training "
                                "has none")
        return TrainingSweep.from_file(path)
    return (DeepTraining if data.get("algorithm") is not None else Training).from_file(path)
