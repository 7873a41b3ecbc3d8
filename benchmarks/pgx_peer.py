"""Pgx, the compiled and batched peer: random play inside one ``jax.jit`` call, observations included.

Pgx (JAX) is the other project that steps whole batches of games in compiled code, so it is the
peer for our batch API and raw kernel. A measured call runs ``CHUNK`` vectorised steps of a batch
inside ``jax.lax.fori_loop``: each step picks a uniformly random legal action per game from
``legal_action_mask`` and applies ``env.step`` (which computes the next player's observation), with
Pgx's own auto-reset wrapper starting a new game where one ended. Every game in the batch makes one
decision per step, so steps/s = batch x CHUNK / seconds. JAX on CPU uses every core (XLA's thread
pool); there is no one-thread figure. Optional: the ``pgx`` extra (pgx 2.6 with jax 0.5.3).
"""

import time
from collections.abc import Callable

PEER_PGX = ("hex", "connect_four", "kuhn_poker", "leduc_holdem")
CHUNK = 64  # steps per compiled call: long enough that dispatch costs nothing, short enough to time


def pgx_available() -> tuple[bool, str]:
    """Whether pgx and jax import, and why not."""
    try:
        import jax  # noqa: F401 - optional: the pgx extra
        import pgx  # noqa: F401 - optional: the pgx extra
    except ImportError as exc:
        return False, f"Pgx not installed ({exc}); install the 'pgx' extra: pip install -e '.[pgx]'"
    return True, ""


def pgx_runner(name: str, batch: int, seed: int = 0) -> Callable[[], int]:
    """A function that plays ``CHUNK`` random steps in each of ``batch`` Pgx games and returns the steps made."""
    import jax  # optional: the pgx extra
    import jax.numpy as jnp  # optional: the pgx extra
    import pgx  # optional: the pgx extra
    from pgx.experimental import auto_reset  # optional: the pgx extra

    if not isinstance(batch, int) or batch < 1:
        raise ValueError(f"batch must be a positive int, got {batch!r}")
    env = pgx.make(name)
    init = jax.vmap(env.init)
    step = jax.vmap(auto_reset(env.step, env.init))

    def one_step(_: int, carry: tuple) -> tuple:
        state, key = carry
        key, pick, reset = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        actions = jax.random.categorical(pick, logits, axis=-1)
        state = step(state, actions, jax.random.split(reset, batch))
        return state, key

    @jax.jit
    def chunk(state: object, key: object) -> tuple:
        return jax.lax.fori_loop(0, CHUNK, one_step, (state, key))

    key = jax.random.PRNGKey(seed)
    key, start = jax.random.split(key)
    carry = [(init(jax.random.split(start, batch)), key)]
    jax.block_until_ready(chunk(*carry[0]))  # compile outside the timed runs

    def run() -> int:
        carry[0] = chunk(*carry[0])
        jax.block_until_ready(carry[0][0].observation)
        return batch * CHUNK

    return run


def observation_size(name: str) -> int:
    """Numbers in one Pgx observation of ``name`` (what every step computes)."""
    import jax  # optional: the pgx extra
    import pgx  # optional: the pgx extra

    env = pgx.make(name)
    return int(env.init(jax.random.PRNGKey(0)).observation.size)


if __name__ == "__main__":  # a quick look: steps/s of each peer game at each batch size
    for game in PEER_PGX:
        for n in (1, 16, 256, 4096):
            run = pgx_runner(game, n)
            t = time.perf_counter()
            done = sum(run() for _ in range(5))
            print(f"pgx {game} x{n}: {done / (time.perf_counter() - t):,.0f} steps/s")
