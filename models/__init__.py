"""The games, each a Mesa model, registered by name (spec contract, rule 1)."""

from models.bucket_brigade import BucketBrigadeModel
from models.firefighting_graph import FirefightingGraphModel
from models.stag_hunt import StagHuntModel
from models.state_punishment import StatePunishmentModel

GAMES = {
    "bucket_brigade": BucketBrigadeModel,
    "state_punishment": StatePunishmentModel,
    "stag_hunt": StagHuntModel,
    "firefighting_graph": FirefightingGraphModel,
}

__all__ = ["GAMES", "BucketBrigadeModel", "FirefightingGraphModel", "StagHuntModel",
           "StatePunishmentModel"]
