"""State Punishment: foraging on a walled grid, with votes on punishing taboo resources.

The model side of the game (docs/rules/state_punishment.md): ``model`` (the Mesa model, its rule
constants and parameter declaration) and the modules beside it."""
