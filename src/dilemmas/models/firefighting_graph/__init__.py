"""Firefighting Graph: the Dec-POMDP of fire levels on a row or a grid of houses.

The model side of the game (docs/rules/firefighting_graph.md): ``rules`` (its rule constants and
parameter declaration), ``model`` (the Mesa model) and the modules beside it."""
