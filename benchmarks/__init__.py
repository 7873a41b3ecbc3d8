"""Measurements: the demo match runner, throughput against peers, tournaments."""
