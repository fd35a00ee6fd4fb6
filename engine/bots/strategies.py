"""The bots: what a player may know, a work budget, and three strategies.

A strategy sees only a :class:`BotView` (its own grid, the card to place, the
turn) and returns a cell. It never sees future cards or the starter; in this
game every player is dealt the same cards, so the cards it has seen are exactly
those on its own grid plus the current one.

Determinism: a strategy's move is a pure function of its seed, the view and
the budget's ``simulations`` — each decision draws from a generator seeded by
(seed, position), never from call history. A time budget (``seconds`` with a
caller-supplied ``clock``) stops work early instead, and then the move depends
on the machine's speed: use it for live play, never for replays or tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Final, Protocol

from engine.bots.fast import (
    CELLS,
    FastBoard,
    LineValues,
    cells_of,
    greedy_deltas,
    rollout,
    sample_future,
    unseen_cards,
)
from engine.bots.prng import SplitMix64
from engine.bots.vectorized import AVAILABLE as VECTORIZED
from engine.bots.vectorized import rollout_values, sample_futures
from engine.cards import Card
from engine.errors import GridFullError
from engine.grid import Grid

DEFAULT_SIMULATIONS: Final = 3000
ROLLOUT_DEPTH: Final = 6
EXPERT_CANDIDATES: Final = 8
# On an empty grid every cell is a corner, an edge or a centre cell up to the
# square's symmetries; trying one of each is enough.
FIRST_MOVE_CELLS: Final = (0, 1, 5)


@dataclass(frozen=True)
class BotView:
    """What a player legitimately knows when placing ``card``."""

    cells: tuple[Card | None, ...]
    card: Card

    def __post_init__(self) -> None:
        if len(self.cells) != CELLS:
            raise ValueError(f"a grid has {CELLS} cells, got {len(self.cells)}")
        if all(c is not None for c in self.cells):
            raise GridFullError("the grid is full")

    @classmethod
    def from_grid(cls, grid: Grid, card: Card) -> BotView:
        return cls(grid.cells(), card)

    @property
    def turn(self) -> int:
        """1..16: how many cards will be on the grid once this one is placed."""
        return sum(c is not None for c in self.cells) + 1

    @property
    def seen(self) -> tuple[Card, ...]:
        return (*(c for c in self.cells if c is not None), self.card)

    def board(self) -> FastBoard:
        return FastBoard.from_cells([-1 if c is None else c.index for c in self.cells])

    def legal_cells(self) -> tuple[int, ...]:
        return cells_of(self.board().legal())

    def key(self) -> str:
        """A canonical text of the position, for seeding a decision."""
        return ",".join("-" if c is None else str(c) for c in self.cells) + "/" + str(self.card)


@dataclass(frozen=True)
class Budget:
    """How much work one decision may take.

    ``simulations`` caps the Monte Carlo rollouts (one rollout = one random
    future played out for one candidate cell); the decision is deterministic
    given the seed. ``seconds``, with a ``clock`` supplied by the caller (the
    engine never reads the time itself), stops earlier when time is up; the
    move then depends on speed, so it is not reproducible.
    """

    simulations: int = DEFAULT_SIMULATIONS
    seconds: float | None = None
    clock: Callable[[], float] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.simulations < 0:
            raise ValueError("simulations must be >= 0")
        if (self.seconds is None) != (self.clock is None):
            raise ValueError("a time budget needs both seconds and a clock")


@dataclass(frozen=True)
class Decision:
    """A chosen cell, the strategy's estimate per evaluated cell, and the work spent."""

    cell: int
    estimates: dict[int, float]
    simulations: int


class Strategy(Protocol):
    name: str

    def decide(self, view: BotView, budget: Budget | None = None) -> Decision: ...

    def choose(self, view: BotView, budget: Budget | None = None) -> int: ...


def vectorized_available() -> bool:
    """Whether numpy is there for the expert's rollouts (it plays the same without)."""
    return VECTORIZED


def _table(name: str) -> LineValues:
    import json

    from engine.bots.training import expand

    text = resources.files("engine.bots").joinpath(name).read_text("utf-8")
    data = json.loads(text)
    assert isinstance(data, dict)
    return expand(data)


@cache
def line_values() -> LineValues:
    """The greedy player's line values (``line_values.json``, learned with exploration in
    every round), expanded on first use (about half a second). The fallback rule's too."""
    return _table("line_values.json")


@cache
def expert_values() -> LineValues:
    """The expert's line values (``expert_values.json``, learned with exploration in the
    first rounds only): its rollouts and their leaves are valued by what a near-greedy
    player makes of a line, which is how the rest of the game will be played."""
    return _table("expert_values.json")


class _Base:
    name = "base"

    def __init__(self, seed: int | str = 0, *, values: LineValues | None = None) -> None:
        self.seed = seed
        # The line-value table (None: the strategy's own); another for experiments and benchmarks.
        self._values = values

    @property
    def values(self) -> LineValues:
        return self._values if self._values is not None else self.default_values()

    def default_values(self) -> LineValues:
        return line_values()

    def rng_for(self, view: BotView) -> SplitMix64:
        return SplitMix64(f"{self.name}/{self.seed}/{view.key()}")

    def decide(self, view: BotView, budget: Budget | None = None) -> Decision:
        raise NotImplementedError

    def choose(self, view: BotView, budget: Budget | None = None) -> int:
        return self.decide(view, budget).cell

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed!r})"


class RandomStrategy(_Base):
    """A legal cell uniformly at random (seeded)."""

    name = "random"

    def decide(self, view: BotView, budget: Budget | None = None) -> Decision:
        legal = view.legal_cells()
        cell = legal[self.rng_for(view).below(len(legal))]
        return Decision(cell, {}, 0)


class GreedyStrategy(_Base):
    """The cell that most raises the summed expected final value of the 8 lines.

    The value of a partial line comes from the learned table (engine.bots.fast);
    ties go to the lowest cell index. No randomness, so the seed is unused.
    """

    name = "greedy"

    def decide(self, view: BotView, budget: Budget | None = None) -> Decision:
        deltas = greedy_deltas(view.board(), view.card.index, self.values)
        return Decision(deltas[0][1], {cell: gain for gain, cell in deltas}, 0)


class ExpertStrategy(_Base):
    """Monte Carlo search over the unseen cards with greedy rollouts.

    The greedy table ranks the legal cells and keeps the best
    ``candidates``; each rollout deals one random future (the cards still to
    come and the starter, from the unseen cards) and plays the next ``depth``
    cards greedily after each candidate; the board is then worth its lines'
    table values, or its exact score with the sampled starter once full.
    Every candidate meets the same futures, so their differences are measured
    with little noise. The cell with the highest mean wins; ties go to the
    greedy order. Truncating at 6 cards plays as well as full rollouts at
    60% of the cost and much better on small budgets (docs/bots.md).
    """

    name = "expert"

    def __init__(
        self,
        seed: int | str = 0,
        *,
        candidates: int = EXPERT_CANDIDATES,
        depth: int = ROLLOUT_DEPTH,
        values: LineValues | None = None,
        vectorized: bool | None = None,
    ) -> None:
        super().__init__(seed, values=values)
        self.candidates = candidates
        self.depth = depth
        # numpy's rollouts when it is there (None): the same decisions, faster.
        self.vectorized = vectorized_available() if vectorized is None else vectorized

    def default_values(self) -> LineValues:
        return expert_values()

    def candidate_cells(self, view: BotView) -> list[int]:
        board = view.board()
        ranked = [cell for _, cell in greedy_deltas(board, view.card.index, self.values)]
        if board.filled == 0:
            ranked = [c for c in ranked if c in FIRST_MOVE_CELLS]
        return ranked[: self.candidates]

    def decide(self, view: BotView, budget: Budget | None = None) -> Decision:
        budget = budget or Budget()
        cells = self.candidate_cells(view)
        rounds = budget.simulations // len(cells)
        if len(cells) == 1 or rounds == 0:
            return Decision(cells[0], {}, 0)
        deadline = None
        if budget.seconds is not None and budget.clock is not None:
            deadline = (budget.clock, budget.clock() + budget.seconds)
        return self.evaluate(view, cells, rounds, deadline)

    def evaluate(
        self,
        view: BotView,
        cells: list[int],
        rounds: int,
        deadline: tuple[Callable[[], float], float] | None = None,
    ) -> Decision:
        """Mean final score after each of ``cells`` over ``rounds`` random futures.

        The futures depend only on the seed and the position, not on ``cells``,
        so a cell evaluated alone gets exactly the estimate it would get among
        others (the analysis relies on this).
        """
        board = view.board()
        unseen = unseen_cards([c.index for c in view.seen])
        need = CELLS - view.turn + 1  # cards still to come, and the starter
        rng = self.rng_for(view)
        totals = [0.0] * len(cells)
        done = 0
        # Without a clock every round at once, as arrays where numpy is there; with
        # one, a round at a time, the clock looked at after each.
        vector = self.vectorized and deadline is None
        chunk = rounds if vector else 1
        rollouts = (self._vectorized if vector else self._one_by_one)(board, cells, view.card.index)
        while done < rounds:
            batch = min(chunk, rounds - done)
            if vector:
                futures = sample_futures(rng, unseen, need, batch)
            else:
                futures = [sample_future(rng, unseen, need) for _ in range(batch)]
            for row in rollouts(futures):
                for j, value in enumerate(row):
                    totals[j] += value
            done += len(futures)
            if deadline is not None and deadline[0]() >= deadline[1]:
                break
        best = max(range(len(cells)), key=lambda j: (totals[j], -j))
        estimates = {cell: totals[j] / done for j, cell in enumerate(cells)}
        return Decision(cells[best], estimates, done * len(cells))

    def _one_by_one(self, board: FastBoard, cells: list[int], card: int) -> Rollouts:
        """Each future's rollout value after each candidate cell, one after another."""
        boards = []
        for cell in cells:
            after = board.copy()
            after.place(cell, card)
            boards.append(after)
        values, depth = self.values, self.depth

        def rollouts(futures: list[list[int]]) -> list[list[float]]:
            return [[rollout(b, f[:-1], f[-1], values, depth) for b in boards] for f in futures]

        return rollouts

    def _vectorized(self, board: FastBoard, cells: list[int], card: int) -> Rollouts:
        """The same numbers as :meth:`_one_by_one`, all at once (engine.bots.vectorized)."""
        values, depth = self.values, self.depth

        def rollouts(futures: list[list[int]]) -> list[list[float]]:
            upcoming, starters = [f[:-1] for f in futures], [f[-1] for f in futures]
            table = rollout_values(board, cells, card, upcoming, starters, values, depth)
            return table.tolist()  # type: ignore[no-any-return]

        return rollouts


StrategyFactory = Callable[[int | str], Strategy]
Rollouts = Callable[[list[list[int]]], list[list[float]]]
"""Futures (cards to come, then the starter) -> a value per future and candidate cell."""

STRATEGIES: Final[dict[str, StrategyFactory]] = {
    "random": RandomStrategy,
    "greedy": GreedyStrategy,
    "expert": ExpertStrategy,
}
"""Strategy name -> factory taking a seed (int or text)."""


def make_strategy(name: str, seed: int | str = 0) -> Strategy:
    """The strategy called ``name`` (see :data:`STRATEGIES`), seeded."""
    try:
        factory = STRATEGIES[name]
    except KeyError:
        raise ValueError(f"unknown strategy {name!r}: choose from {sorted(STRATEGIES)}") from None
    return factory(seed)


def fallback_cell(grid: Grid, card: Card) -> int:
    """The cell to auto-place ``card`` on when a player's clock runs out.

    The greedy strategy's choice: deterministic (no seed, ties to the lowest
    cell index) and cheap (well under a millisecond after the table's first
    load). Raises :class:`GridFullError` on a full grid.
    """
    if grid.is_full:
        raise GridFullError("the grid is full")
    board = FastBoard.from_cells([-1 if c is None else c.index for c in grid.cells()])
    return greedy_deltas(board, card.index, line_values())[0][1]
