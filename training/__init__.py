"""Training with Ray RLlib (self-play PPO with action masking): see the README's Training section."""
