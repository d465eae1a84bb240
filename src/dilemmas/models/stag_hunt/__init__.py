"""Stag Hunt Physical: a gridworld hunt of stags and hares with attack and punish beams.

The model side of the game (docs/rules/stag_hunt.md): ``model`` (the Mesa model, its rule
constants and parameter declaration) and the modules beside it."""
