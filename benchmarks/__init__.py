"""Measurements: throughput against peers, learning speed, exploration scripts (the Duel's board reach)."""
