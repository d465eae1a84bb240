"""Sweeps, summaries and figures built on the games' DataCollector columns."""
