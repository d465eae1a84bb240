"""The games, each a Mesa model, registered by name (spec contract, rule 1)."""

from models.bucket_brigade import BucketBrigadeModel

GAMES = {
    "bucket_brigade": BucketBrigadeModel,
}

__all__ = ["GAMES", "BucketBrigadeModel"]
