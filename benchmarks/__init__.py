"""Measurements: throughput against peers, learning speed, tournaments between bots, the demo job."""
