"""Learning: training learners in studies and evaluating policies."""
