"""The behaviours of every game, as Mesa Agent subclasses, and ``population`` parsing."""
