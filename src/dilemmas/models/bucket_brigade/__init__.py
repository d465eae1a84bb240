"""Bucket Brigade: firefighting on a ring of houses, with public signals and lies.

The model side of the game (docs/rules/bucket_brigade.md): ``rules`` (its rule constants and
parameter declaration), ``model`` (the Mesa model) and the modules beside it."""
