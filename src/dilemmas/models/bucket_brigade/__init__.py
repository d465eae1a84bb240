"""Bucket Brigade: firefighting on a ring of houses, with public signals and lies.

The model side of the game (docs/rules/bucket_brigade.md): ``model`` (the Mesa model, its rule
constants and parameter declaration) and the modules beside it."""
