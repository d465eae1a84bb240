"""Stag Hunt Physical: a gridworld hunt of stags and hares with attack and punish beams.

The model side of the game (docs/rules/stag_hunt.md): ``rules`` (its rule constants and
parameter declaration), ``model`` (the Mesa model) and the modules beside it."""
