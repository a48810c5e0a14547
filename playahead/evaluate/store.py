"""The results store: one SQLite file per evaluation, one row per finished game.

Every game is written in its own transaction the moment it ends, in WAL mode, so a
crash or ``kill -9`` loses at most the games still being played. A row is keyed by
``(agent, opponent, game_index, side)`` and the agents' fingerprints (UNIQUE):
re-running an evaluation reads which games are done and plays only the rest, and a
game can never be stored twice.

Every row also carries the *fingerprint* of the agent that played it (and of its
opponent): a hash of the agent's fully resolved options (the spec's options over
every default, the game's defaults filled in: :func:`playahead.agents.resolved_options`)
and playahead's version; the ``identities`` table keeps what each fingerprint stands
for. A run that registers its agents (:meth:`Store.use_agents`) sees only the games of
the same fingerprints: after a default changes, ``expectimax`` is another agent, its
old games stay in the file but are not reused, and :meth:`Store.notes` names what
differs. Stores written before fingerprints are migrated on opening (their games get
the empty fingerprint: played by options nobody recorded, so never reused).

The ``meta`` table fixes what the store is about: env id, env options (canonical JSON),
root seed and kind (``"single"`` or ``"two_player"``). Opening a store that holds games
with anything else raises ``ValueError`` naming both, so games from different settings
never mix (a store without games takes the new settings).

``games`` columns: ``agent`` and ``opponent`` (spec strings; ``opponent`` is ``""`` in
one-player games), ``game_index``, ``side`` (the player ``agent`` was: 0 or 1; 0 in
one-player games), ``env_id``, ``env_options``, ``seed`` (the env's reset seed),
``score`` (final score; two-player: points of ``agent``, 1 / 0.5 / 0), ``max_tile``
(NULL in two-player games), ``moves`` (plies), ``winner`` (player 0 or 1, -1 for a
draw; NULL in one-player games), ``seconds`` and ``opponent_seconds`` (thinking time:
CPU seconds of the thread that called the agent), ``move_seconds`` and
``opponent_move_seconds`` (float32 blobs, one entry per move), ``version``
(playahead's), ``finished_at`` (UTC, ISO 8601), ``fingerprint`` and
``opponent_fingerprint`` (``""`` for none).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import hashlib
import json
import sqlite3
import time
from pathlib import Path

import numpy as np

_GAMES = """
CREATE TABLE IF NOT EXISTS {name} (
    agent TEXT NOT NULL,
    opponent TEXT NOT NULL DEFAULT '',
    game_index INTEGER NOT NULL,
    side INTEGER NOT NULL,
    env_id TEXT NOT NULL,
    env_options TEXT NOT NULL,
    seed INTEGER NOT NULL,
    score REAL NOT NULL,
    max_tile INTEGER,
    moves INTEGER NOT NULL,
    winner INTEGER,
    seconds REAL NOT NULL,
    opponent_seconds REAL,
    move_seconds BLOB NOT NULL,
    opponent_move_seconds BLOB,
    version TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    fingerprint TEXT NOT NULL DEFAULT '',
    opponent_fingerprint TEXT NOT NULL DEFAULT '',
    UNIQUE (agent, opponent, game_index, side, fingerprint, opponent_fingerprint)
);
"""
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS agent_files (agent TEXT PRIMARY KEY, sha256 TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS identities (
    fingerprint TEXT PRIMARY KEY, identity TEXT NOT NULL
);
""" + _GAMES.format(name="games")

_COLUMNS = (
    "agent, opponent, game_index, side, env_id, env_options, seed, score, max_tile, "
    "moves, winner, seconds, opponent_seconds, move_seconds, opponent_move_seconds, "
    "version, finished_at, fingerprint, opponent_fingerprint"
)
_COLUMN_SET = set(_COLUMNS.split(", "))
#: The columns of a store written before fingerprints (migrated on opening).
_OLD_COLUMNS = _COLUMNS.rsplit(", fingerprint", 1)[0]
_OLD_COLUMN_SET = set(_OLD_COLUMNS.split(", "))


@dataclasses.dataclass(frozen=True)
class GameRecord:
    """One finished game.

    Attributes:
        agent: spec of the agent (two-player: the first of the pair, in sorted order).
        opponent: spec of the other agent, ``""`` in one-player games.
        game_index: which game seed was used (0-based).
        side: the player ``agent`` was (0 moves first); 0 in one-player games.
        seed: the env's reset seed.
        score: final score, or ``agent``'s points (1 win, 0.5 draw, 0 loss).
        max_tile: the largest tile (one-player tile games), else None.
        moves: plies played (both players' in two-player games).
        winner: 0, 1, or -1 for a draw (two-player), else None.
        seconds: ``agent``'s total thinking time.
        move_seconds: ``float32[moves by agent]`` thinking time per move.
        opponent_seconds, opponent_move_seconds: the same for ``opponent``.
        version: the playahead version that played the game.
    """

    agent: str
    opponent: str
    game_index: int
    side: int
    seed: int
    score: float
    max_tile: int | None
    moves: int
    winner: int | None
    seconds: float
    move_seconds: np.ndarray
    opponent_seconds: float | None = None
    opponent_move_seconds: np.ndarray | None = None
    version: str = ""

    @property
    def key(self) -> tuple[str, str, int, int]:
        return (self.agent, self.opponent, self.game_index, self.side)


def canonical_options(env_kwargs: dict | None) -> str:
    """Env options as canonical JSON (sorted keys), the form the store compares.

    Raises:
        ValueError: the options are not JSON-serialisable.
    """
    try:
        return json.dumps(env_kwargs or {}, sort_keys=True, separators=(",", ":"))
    except TypeError as err:
        raise ValueError(f"env options must be JSON-serialisable: {err}") from None


def agent_identity(spec: str, env_id: str) -> dict:
    """What an agent spec stands for on ``env_id``: its name, fully resolved options
    (:func:`playahead.agents.resolved_options`) and playahead's version.

    Raises:
        ValueError: a bad spec.
    """
    from playahead import __version__
    from playahead.agents import parse_spec, resolved_options

    options = json.loads(json.dumps(resolved_options(spec, env_id), default=str))
    return {"name": parse_spec(spec)[0], "options": options, "version": __version__}


def fingerprint(identity: dict) -> str:
    """A short hash (16 hex digits) of an :func:`agent_identity`."""
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def identity_difference(old: dict | None, new: dict) -> str:
    """What differs between two identities, as ``"budget=1.0, now budget=2000"``."""
    if old is None:
        return "options nobody recorded (written before fingerprints)"
    was, now = old.get("options", {}), new.get("options", {})
    keys = [k for k in sorted(was.keys() | now.keys()) if was.get(k) != now.get(k)]
    then = [f"{k}={_shown(was, k)}" for k in keys]
    ours = [f"{k}={_shown(now, k)}" for k in keys]
    if old.get("version") != new.get("version"):
        then.append(f"playahead {old.get('version')}")
        ours.append(f"playahead {new.get('version')}")
    if old.get("name") != new.get("name"):
        then.insert(0, f"agent {old.get('name')}")
        ours.insert(0, f"agent {new.get('name')}")
    if not then:
        return "the same options"
    return f"{', '.join(then)}, now {', '.join(ours)}"


def _shown(options: dict, key: str) -> str:
    return json.dumps(options[key]) if key in options else "(unset)"


def _blob(times) -> bytes | None:
    if times is None:
        return None
    return np.asarray(times, dtype="<f4").tobytes()


def _unblob(data) -> np.ndarray | None:
    if data is None:
        return None
    return np.frombuffer(data, dtype="<f4").astype(np.float64)


class Store:
    """An open results store (see the module docstring).

    Args:
        path: the SQLite file (created with its folder if missing), or ``":memory:"``.
        env_id, env_kwargs, seed, kind: what the store is about; checked against an
            existing store.

    Raises:
        ValueError: the file holds games of another env, options, seed or kind, or is
            not a playahead store.
    """

    def __init__(
        self,
        path: str | Path,
        env_id: str,
        env_kwargs: dict | None,
        seed: int,
        kind: str,
    ):
        self.path = str(path)
        self.env_id = env_id
        self.env_options = canonical_options(env_kwargs)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # Switching a new file to WAL does not wait for SQLite's busy timeout: while
        # another run opens the same file it says "database is locked", so retry.
        for attempt in range(600):
            try:
                self._open()
                break
            except sqlite3.OperationalError as err:
                self._db.close()
                if "locked" not in str(err) or attempt == 599:
                    raise ValueError(f"cannot open {self.path}: {err}") from None
                time.sleep(0.05)
            except sqlite3.DatabaseError as err:
                self._db.close()
                raise ValueError(
                    f"{self.path} is not a playahead results store ({err}); choose "
                    "another --out file"
                ) from None
        self._wanted = {
            "env_id": env_id,
            "env_options": self.env_options,
            "seed": str(int(seed)),
            "kind": kind,
        }
        with self._written():
            self._check_meta(self._wanted)

    def _open(self) -> None:
        self._db = sqlite3.connect(self.path, timeout=30.0)
        self._db.execute("PRAGMA journal_mode=WAL")
        # In WAL mode, NORMAL keeps every commit through a process crash.
        self._db.execute("PRAGMA synchronous=NORMAL")
        with self._db:
            self._db.executescript(SCHEMA)
        self._migrate()
        self._check_tables()
        self._fingerprints: dict[str, str] = {}
        self._identities: dict[str, dict] = {}

    def _columns(self, table: str) -> set[str]:
        return {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}

    def _migrate(self) -> None:
        """Give a store from before fingerprints the fingerprint columns (its games
        get ``""``), in one transaction: another run opening it waits, then finds it
        migrated."""
        if self._columns("games") != _OLD_COLUMN_SET:
            return
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            if self._columns("games") == _OLD_COLUMN_SET:
                self._db.execute("DROP TABLE IF EXISTS games_new")
                self._db.execute(_GAMES.format(name="games_new"))
                self._db.execute(
                    f"INSERT INTO games_new ({_OLD_COLUMNS}) "
                    f"SELECT {_OLD_COLUMNS} FROM games"
                )
                self._db.execute("DROP TABLE games")
                self._db.execute("ALTER TABLE games_new RENAME TO games")

    def _check_tables(self) -> None:
        """A file of another program (same table names, other columns) or a damaged
        one raises ``sqlite3.DatabaseError``."""
        for table, wanted in (("meta", {"key", "value"}), ("games", _COLUMN_SET)):
            have = self._columns(table)
            if have != wanted:
                raise sqlite3.DatabaseError(
                    f"its table {table!r} has columns {sorted(have)}, not playahead's"
                )
        problems = [row[0] for row in self._db.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise sqlite3.DatabaseError(f"damaged: {'; '.join(problems[:3])}")

    def _meta(self) -> dict[str, str]:
        return dict(self._db.execute("SELECT key, value FROM meta").fetchall())

    def _check_meta(self, wanted: dict[str, str]) -> None:
        # Read and claim in one write transaction, so two runs opening a new file at
        # once cannot both find it empty.
        self._db.execute("BEGIN IMMEDIATE")
        try:
            have = self._meta()
            if not have or (have != wanted and self.count() == 0):
                # A store without games belongs to no evaluation yet.
                self._db.execute("DELETE FROM meta")
                self._db.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?)", wanted.items()
                )
                have = wanted
        finally:
            self._db.commit()
        diff = {k: (have.get(k), v) for k, v in wanted.items() if have.get(k) != v}
        if diff:
            details = "; ".join(
                f"{key}: store has {old!r}, this run asks for {new!r}"
                for key, (old, new) in diff.items()
            )
            self.close()
            raise ValueError(
                f"{self.path} holds games of another evaluation ({details}); use "
                "another --out file, or the same env, options and seed as before"
            )

    def check_files(self, fingerprints: dict[str, str]) -> None:
        """Tie each agent spec to the content of the file it loads (``sha256``).

        The first run records the fingerprints; later runs must match them while the
        store holds games of that agent, so replacing a model behind the same
        ``path=`` never passes off the old model's games as the new one's.

        Raises:
            ValueError: the file behind a spec changed since its games were stored.
        """
        with self._written(), self._db:
            self._db.execute("BEGIN IMMEDIATE")
            for spec, digest in fingerprints.items():
                row = self._db.execute(
                    "SELECT sha256 FROM agent_files WHERE agent = ?", (spec,)
                ).fetchone()
                if row is not None and row[0] != digest:
                    (n,) = self._db.execute(
                        "SELECT COUNT(*) FROM games WHERE agent = ? OR opponent = ?",
                        (spec, spec),
                    ).fetchone()
                    if n:
                        raise ValueError(
                            f"the file behind {spec!r} changed since {n} of its "
                            f"games were stored in {self.path} (sha256 "
                            f"{row[0][:12]}... then, {digest[:12]}... now); use "
                            "another --out file to evaluate the new file"
                        )
                self._db.execute(
                    "INSERT OR REPLACE INTO agent_files (agent, sha256) VALUES (?, ?)",
                    (spec, digest),
                )

    def use_agents(self, identities: dict[str, dict]) -> None:
        """Register this run's agents: ``{spec: agent_identity(spec, env_id)}``.

        From now on :meth:`done`, :meth:`records` and :meth:`add` see and write only
        games played by these identities (specs not registered: every game).
        """
        rows = []
        for spec, ident in identities.items():
            fp = fingerprint(ident)
            self._fingerprints[spec] = fp
            self._identities[spec] = ident
            rows.append((fp, json.dumps(ident, sort_keys=True)))
        with self._written(), self._db:
            self._db.executemany(
                "INSERT OR IGNORE INTO identities (fingerprint, identity) "
                "VALUES (?, ?)",
                rows,
            )

    def _matches(self, agent: str, opponent: str, fp: str, opp_fp: str) -> bool:
        want = self._fingerprints
        ok = agent not in want or want[agent] == fp
        return ok and (not opponent or opponent not in want or want[opponent] == opp_fp)

    def done(self) -> set[tuple[str, str, int, int]]:
        """Keys ``(agent, opponent, game_index, side)`` of the finished games (of the
        registered identities, see :meth:`use_agents`)."""
        rows = self._db.execute(
            "SELECT agent, opponent, game_index, side, fingerprint, "
            "opponent_fingerprint FROM games"
        ).fetchall()
        return {tuple(row[:4]) for row in rows if self._matches(*row[:2], *row[4:])}

    def notes(self) -> list[str]:
        """One line per registered agent whose stored games were played by another
        identity (other resolved options or version): those games are not reused.
        ``"expectimax: 12 stored games were played with budget=1.0, now
        budget=30000000: not reused"``."""
        found: dict[tuple[str, str], int] = {}
        rows = self._db.execute(
            "SELECT agent, fingerprint, opponent, opponent_fingerprint, COUNT(*) "
            "FROM games GROUP BY agent, fingerprint, opponent, opponent_fingerprint"
        ).fetchall()
        for agent, fp, opponent, opp_fp, n in rows:
            for spec, old in ((agent, fp), (opponent, opp_fp)):
                want = self._fingerprints.get(spec)
                if spec and want is not None and old != want:
                    found[spec, old] = found.get((spec, old), 0) + n
        lines = []
        for (spec, old), n in sorted(found.items()):
            row = self._db.execute(
                "SELECT identity FROM identities WHERE fingerprint = ?", (old,)
            ).fetchone()
            then = json.loads(row[0]) if row else None
            diff = identity_difference(then, self._identities[spec])
            games = "game was" if n == 1 else "games were"
            lines.append(f"{spec}: {n} stored {games} played with {diff}: not reused")
        return lines

    @contextlib.contextmanager
    def _written(self):
        """A write that SQLite refuses (a full disk, a read-only file) raises
        ValueError in one line; its transaction is rolled back, the games stored
        before it stay, and the same command later plays only the rest."""
        try:
            yield
        except sqlite3.OperationalError as err:
            full = "full" in str(err)
            try:
                kept = f"the {self.count():,} games stored before are kept"
            except sqlite3.Error:
                kept = "the games stored before are kept"
            raise ValueError(
                f"cannot write to {self.path}: "
                + ("the disk is full" if full else str(err))
                + f"; {kept}: "
                + ("free some space" if full else "fix that")
                + " and run the same command again to play the rest"
            ) from None

    def add(self, record: GameRecord, finished_at: str | None = None) -> bool:
        """Write one finished game in its own transaction (with the fingerprints of
        its agents, if registered).

        Returns:
            False if that game was already stored (it is left as it was).

        Raises:
            ValueError: SQLite cannot write the game (a full disk: the message says
                so; the games stored before are kept, see :meth:`_written`), or
                another evaluation took the file over.
        """
        stamp = finished_at or datetime.datetime.now(datetime.UTC).isoformat()
        values = (
            record.agent,
            record.opponent,
            int(record.game_index),
            int(record.side),
            self.env_id,
            self.env_options,
            int(record.seed),
            float(record.score),
            None if record.max_tile is None else int(record.max_tile),
            int(record.moves),
            None if record.winner is None else int(record.winner),
            float(record.seconds),
            None if record.opponent_seconds is None else float(record.opponent_seconds),
            _blob(record.move_seconds),
            _blob(record.opponent_move_seconds),
            record.version,
            stamp,
            self._fingerprints.get(record.agent, ""),
            self._fingerprints.get(record.opponent, "") if record.opponent else "",
        )
        marks = ", ".join("?" * len(values))
        with self._written(), self._db:
            self._db.execute("BEGIN IMMEDIATE")
            if self._meta() != self._wanted:
                # another run claimed this file while it held no games yet
                raise ValueError(
                    f"{self.path} was taken over by another evaluation with other "
                    f"settings ({self._meta()}); this run's games ({self._wanted}) "
                    "were not written to it: use another --out file"
                )
            cursor = self._db.execute(
                f"INSERT OR IGNORE INTO games ({_COLUMNS}) VALUES ({marks})", values
            )
        return cursor.rowcount == 1

    def records(
        self, agent: str, opponent: str = "", n_games: int | None = None
    ) -> list[GameRecord]:
        """The stored games of ``agent`` (against ``opponent``), by game index and
        side; only indices below ``n_games`` when given; only the registered
        identities' games (see :meth:`use_agents`)."""
        limit = (1 << 62) if n_games is None else int(n_games)
        rows = self._db.execute(
            "SELECT agent, opponent, game_index, side, seed, score, max_tile, moves, "
            "winner, seconds, move_seconds, opponent_seconds, opponent_move_seconds, "
            "version, fingerprint, opponent_fingerprint FROM games WHERE agent = ? "
            "AND opponent = ? AND game_index < ? ORDER BY game_index, side",
            (agent, opponent, limit),
        ).fetchall()
        return [
            GameRecord(
                agent=r[0],
                opponent=r[1],
                game_index=r[2],
                side=r[3],
                seed=r[4],
                score=r[5],
                max_tile=r[6],
                moves=r[7],
                winner=r[8],
                seconds=r[9],
                move_seconds=_unblob(r[10]),
                opponent_seconds=r[11],
                opponent_move_seconds=_unblob(r[12]),
                version=r[13],
            )
            for r in rows
            if self._matches(r[0], r[1], r[14], r[15])
        ]

    def count(self) -> int:
        """Number of stored games."""
        return int(self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def close(self) -> None:
        """Close the database (every finished game is already written)."""
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
