"""How well a policy's network can learn the moves of the positions a game solves: the positions where
``Game.solved_values`` (and, where the game has it, ``Game.refill_values``: each move's exact expected worth) answer,
gathered from the policy's own sampled self-play with each move's exact worth; then the policy's network trained
on them (supervised: the log-probability of the set of best moves) and judged on the positions of games it was not
trained on (one game in five): after each epoch, the share of those positions where its argmax is a move of best
worth and the mean worth it gives up, by kind (``solved``, ``expected``).

    python -m benchmarks.solved_fit collect capivari --policy reference --games 8000 --out runs/solved-positions.npz
    python -m benchmarks.solved_fit fit runs/solved-positions.npz --policy reference --epochs 8
    python -m benchmarks.solved_fit fit runs/solved-positions.npz --policy reference --scratch --share 0.5
    python -m benchmarks.solved_fit fit runs/solved-positions.npz runs/more-positions.npz --scratch   # two collections
"""

import argparse
import io
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

import envs
from agents.compiled_policy import load_policy, policy_path, read_arrays, save_policy
from envs.batch import BatchEnv
from envs.engine.game import Game
from envs.files import write_atomic
from training.search_net import SearchNet, file_layout, load_net_arrays, net_arrays
from training.search_targets import candidate_targets

KINDS = ("solved", "expected")  # Game.solved_values, Game.refill_values
HELD_OUT = 5  # game ids divisible by this are held out
WORKER_GAMES = 64  # games a task keeps in its batch
CHUNK = 250  # games a task plays


def _play(task: tuple[str, str, int, int, int, float]) -> dict[str, np.ndarray]:
    """One task's positions: games ``first .. first + count - 1`` of the policy's sampled self-play (a uniformly
    random legal move with probability ``epsilon``), their deals drawn from ``seed``."""
    game_name, path, first, count, seed, epsilon = task
    policy = load_policy(path)
    game = envs.make(game_name, **policy.info.game_config).game
    expected = type(game).refill_values is not Game.refill_values
    slots = min(WORKER_GAMES, count)
    env = BatchEnv(game, slots, seed=seed, threads=1)
    obs, masks, _ = env.reset()
    rng = np.random.default_rng([seed, first])
    ids = np.arange(slots)
    started, ended = slots, 0
    rows: dict[str, list[Any]] = {"obs": [], "mask": [], "values": [], "kind": [], "game": []}
    while ended < count:
        module_masks = masks if policy.candidates is None else policy.candidates.masks(masks)
        logits, _ = policy.forward(obs, module_masks)
        z = np.where(module_masks > 0, logits.astype(np.float64), -np.inf)
        p = np.exp(z - z.max(axis=1, keepdims=True))
        choice = np.array([rng.choice(p.shape[1], p=q / q.sum()) for q in p])
        actions = choice if policy.candidates is None else policy.candidates.game_actions(masks, choice)
        for i in range(slots):
            if rng.random() < epsilon:
                actions[i] = rng.choice(np.flatnonzero(masks[i]))
            if ids[i] >= count or np.count_nonzero(masks[i]) < 2:
                continue
            state = env.states[i : i + 1]
            values, kind = game.solved_values(state), 0
            if values is None and expected:
                values, kind = game.refill_values(state), 1
            if values is not None:
                for key, x in zip(rows, (obs[i], masks[i], values, kind, first + ids[i]), strict=True):
                    rows[key].append(np.copy(x))
        obs, masks, _, _, dones = env.step(np.asarray(actions, np.int64))
        for i in np.flatnonzero(dones):
            ended += int(ids[i] < count)
            ids[i], started = started, started + 1
    return {
        "obs": np.asarray(rows["obs"], np.float32).reshape(-1, game.obs_size),
        "mask": np.asarray(rows["mask"], np.int8).reshape(-1, game.num_actions),
        "values": np.asarray(rows["values"], np.float32).reshape(-1, game.num_actions),
        "kind": np.asarray(rows["kind"], np.int8),
        "game": np.asarray(rows["game"], np.int64),
    }


def collect(
    game: str, policy: str, games: int, *, seed: int = 1, workers: int = 2, epsilon: float = 0.1
) -> dict[str, np.ndarray]:
    """The positions of ``games`` games of the policy (a file, a run folder or ``reference``) against itself,
    sampled from its softmax, where the game solves each move's worth: observations as the policy's file observes,
    masks, each move's worth (-inf where illegal), kind (0 solved, 1 expected), game id; ValueError for a game
    that solves no position, a policy of another game, or a bad count."""
    if games < 1 or workers < 1 or not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"games and workers must be >= 1 and epsilon in [0, 1]; got {games}, {workers}, {epsilon}")
    path = str(policy_path(policy, game))
    loaded = load_policy(path, game)
    table = envs.make(game, **loaded.info.game_config).game
    if type(table).solved_values is Game.solved_values:
        raise ValueError(f"{game} solves no position (Game.solved_values)")
    firsts = range(0, games, CHUNK)
    tasks = [(table.name, path, k, min(CHUNK, games - k), seed * 2**24 + k, epsilon) for k in firsts]
    parts = []
    with ProcessPoolExecutor(workers) as pool, tqdm(total=games, desc="games", unit="game", file=sys.stderr) as bar:
        for part, task in zip(pool.map(_play, tasks), tasks, strict=True):
            parts.append(part)
            bar.update(task[3])
    out = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    out["game_name"] = np.array(table.name)
    out["game_config"] = np.array(json.dumps(loaded.info.game_config, sort_keys=True))
    return out


def save_positions(positions: dict[str, np.ndarray], path: str) -> None:
    """Write ``collect``'s arrays to ``path`` (compressed ``.npz``, a temporary file renamed into place)."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **positions)
    write_atomic(path, buffer.getvalue())


def load_positions(path: str) -> dict[str, np.ndarray]:
    """``collect``'s arrays from a file ``save_positions`` wrote (parsed, nothing unpickled)."""
    with np.load(path, allow_pickle=False) as f:
        missing = {"obs", "mask", "values", "kind", "game", "game_name", "game_config"} - set(f.files)
        if missing:
            raise ValueError(f"{path}: not a file of solved positions (missing {sorted(missing)})")
        return {key: f[key] for key in f.files}


def merge_positions(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Several collections of one game and config as one, each one's game ids moved past the previous ones' (by a
    multiple of the held-out stride, so each keeps its held-out games); ValueError if they differ in game or config."""
    first = parts[0]
    for other in parts[1:]:
        if str(other["game_name"]) != str(first["game_name"]) or str(other["game_config"]) != str(first["game_config"]):
            raise ValueError("these positions come from different games or configs: fit them apart")
    out = {key: np.concatenate([p[key] for p in parts]) for key in ("obs", "mask", "values", "kind")}
    offset, games = 0, []
    for p in parts:
        games.append(p["game"] + offset)
        span = int(p["game"].max()) + 1 if p["game"].size else 0
        offset += -(-span // HELD_OUT) * HELD_OUT
    out["game"] = np.concatenate(games)
    out["game_name"], out["game_config"] = first["game_name"], first["game_config"]
    return out


def _network(arrays: dict[str, np.ndarray], game: Any, source: str, scratch: bool) -> SearchNet:
    """The policy file's network (its weights, or freshly initialized with ``scratch``)."""
    hiddens, layout = file_layout(arrays, game, source)
    net = SearchNet(game.obs_size, layout.view.size if layout else game.num_actions, hiddens, layout)
    if not scratch:
        load_net_arrays(net, arrays, source)
    return net


def fit(
    positions: dict[str, np.ndarray], policy: str, *, epochs: int = 8, lr: float = 5e-4, batch_size: int = 512,
    share: float = 1.0, scratch: bool = False, seed: int = 0, progress: bool = True, out: str | None = None,
) -> list[dict[str, Any]]:  # fmt: skip
    """One row per epoch (epoch 0: before training): the training loss and, by kind, the held-out positions'
    count, the share where the network's argmax is a move of best worth and the mean worth given up.
    The first ``share`` of the training games are used; ``scratch`` starts from fresh weights in the file's shape;
    ``out``: the network after the last epoch written there as a policy file."""
    if epochs < 0 or not 0.0 < share <= 1.0 or lr <= 0 or batch_size < 1:
        raise ValueError(f"need epochs >= 0, 0 < share <= 1, lr > 0, batch_size >= 1; got {epochs}, {share}, {lr}")
    game_name = str(positions["game_name"])
    path = policy_path(policy, game_name)
    arrays = read_arrays(path)
    config = json.loads(str(positions["game_config"]))
    if json.loads(str(arrays["game_config"][()])) != config or envs.game_name(str(arrays["game"][()])) != game_name:
        raise ValueError(f"{path} observes another game or config than these positions ({game_name}, {config})")
    game = envs.make(game_name, **config).game
    torch.manual_seed(seed)
    net = _network(arrays, game, repr(str(path)), scratch)
    view = net.candidates.view if net.candidates is not None else None
    values = positions["values"].astype(np.float64)
    best = (values >= values.max(axis=1, keepdims=True) - 1e-9).astype(np.float32)
    mask = positions["mask"]
    module_mask, module_best = (mask, best) if view is None else candidate_targets(view, mask, best)
    obs_t = torch.from_numpy(positions["obs"])
    mask_t = torch.from_numpy(module_mask.astype(np.float32))
    best_t = torch.from_numpy(module_best) > 0
    games = positions["game"]
    test = np.flatnonzero(games % HELD_OUT == 0)
    training_games = np.unique(games[games % HELD_OUT != 0])
    used = training_games[: int(np.ceil(share * training_games.size))]
    train = np.flatnonzero(np.isin(games, used))
    if test.size == 0 or train.size == 0:
        raise ValueError(f"{train.size} training and {test.size} held-out positions: collect more games")

    def judged(epoch: int, loss: float | None) -> dict[str, Any]:
        net.eval()
        with torch.no_grad():
            choice = np.concatenate(
                [net(obs_t[k], mask_t[k])[0].argmax(1).numpy() for k in np.array_split(test, -(-test.size // 4096))]
            )
        net.train()
        moves = choice if view is None else view.game_actions(mask[test], choice)
        given_up = values[test].max(axis=1) - values[test, moves]
        row: dict[str, Any] = {"epoch": epoch, "loss": loss, "train_positions": int(train.size)}
        for k, kind in enumerate(KINDS):
            sel = positions["kind"][test] == k
            row[kind] = {
                "positions": int(sel.sum()),
                "best_share": float(np.mean(given_up[sel] < 1e-9)) if sel.any() else None,
                "given_up": float(given_up[sel].mean()) if sel.any() else None,
            }
        return row

    rows = [judged(0, None)]
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    for epoch in tqdm(range(1, epochs + 1), desc="epochs", unit="epoch", file=sys.stderr, disable=not progress):
        total = 0.0
        order = rng.permutation(train)
        for k in range(0, order.size, batch_size):
            b = torch.from_numpy(order[k : k + batch_size])
            logp = torch.log_softmax(net(obs_t[b], mask_t[b])[0], dim=-1)
            loss = -torch.logsumexp(logp.masked_fill(~best_t[b], -torch.inf), dim=-1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * b.numel()
        rows.append(judged(epoch, total / order.size))
    if out is not None:
        save_policy(net_arrays(net, game), out)
    return rows


def _line(row: dict[str, Any]) -> str:
    parts = [f"epoch {row['epoch']:3d}", "loss  " + ("  -   " if row["loss"] is None else f"{row['loss']:.4f}")]
    for kind in KINDS:
        r = row[kind]
        if r["positions"]:
            parts.append(f"{kind}: best {r['best_share']:.1%}, given up {r['given_up']:.4f} ({r['positions']})")
    return "  ".join(parts)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="positions of the policy's self-play with each move's exact worth")
    c.add_argument("game")
    c.add_argument("--policy", default="reference", help="a policy file, a run folder or 'reference'")
    c.add_argument("--games", type=int, default=8000)
    c.add_argument("--workers", type=int, default=2)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--epsilon", type=float, default=0.1, help="share of moves uniformly random")
    c.add_argument("--out", required=True, help="the positions' .npz")
    f = sub.add_parser("fit", help="train the policy's network on them; held-out share of best moves by epoch")
    f.add_argument("positions", nargs="+", help="files `collect` wrote (of one game and config)")
    f.add_argument("--policy", default="reference", help="the network's file (its weights and shape)")
    f.add_argument("--scratch", action="store_true", help="fresh weights in the file's shape")
    f.add_argument("--epochs", type=int, default=8)
    f.add_argument("--lr", type=float, default=5e-4)
    f.add_argument("--batch-size", type=int, default=512)
    f.add_argument("--share", type=float, default=1.0, help="share of the training games used")
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--json", help="write the rows here")
    f.add_argument("--out", help="write the trained network here as a policy file (policy:FILE in the arena)")
    args = parser.parse_args(argv)
    try:
        if args.command == "collect":
            t0 = time.perf_counter()
            positions = collect(args.game, args.policy, args.games, seed=args.seed, workers=args.workers,
                                epsilon=args.epsilon)  # fmt: skip
            save_positions(positions, args.out)
            counts = np.bincount(positions["kind"], minlength=len(KINDS))
            print(f"{args.out}: {dict(zip(KINDS, counts.tolist(), strict=True))} positions of {args.games} games in "
                  f"{time.perf_counter() - t0:.0f} s")  # fmt: skip
            return
        positions = merge_positions([load_positions(p) for p in args.positions])
        rows = fit(positions, args.policy, epochs=args.epochs, lr=args.lr, batch_size=args.batch_size,
                   share=args.share, scratch=args.scratch, seed=args.seed, out=args.out)  # fmt: skip
    except (ValueError, OSError) as exc:  # bad settings, or a positions file that is missing or unreadable
        parser.error(str(exc))
    for row in rows:
        print(_line(row), flush=True)
    if args.json:
        write_atomic(args.json, json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
