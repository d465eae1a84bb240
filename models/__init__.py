"""The games, each a Mesa model, registered by name (spec contract, rule 1)."""

from models.bucket_brigade import BucketBrigadeModel
from models.state_punishment import StatePunishmentModel

GAMES = {
    "bucket_brigade": BucketBrigadeModel,
    "state_punishment": StatePunishmentModel,
}

__all__ = ["GAMES", "BucketBrigadeModel", "StatePunishmentModel"]
