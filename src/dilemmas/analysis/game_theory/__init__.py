"""Game theory over empirical payoff tables: payoffs, ranking, Schelling diagrams and evolutionary
dynamics."""
