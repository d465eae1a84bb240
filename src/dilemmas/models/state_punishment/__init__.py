"""State Punishment: foraging on a walled grid, with votes on punishing taboo resources.

The model side of the game (docs/rules/state_punishment.md): ``rules`` (its rule constants and
parameter declaration), ``model`` (the Mesa model) and the modules beside it."""
