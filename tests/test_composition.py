"""Parts composed, not towers: no class of the project stands on a chain of more
than two of the project's classes (itself and one base), so that no floor sees and
writes all of ``self``. A room is ``Room(RoomBase)`` with its parts (the addresser,
the results, the dealer); exceptions, pydantic models, enums and protocols are
types, not machines, and are not counted."""

from __future__ import annotations

import enum
import importlib
import inspect
import pkgutil

from pydantic import BaseModel

PACKAGES = ("engine", "protocol", "server", "client_cli")


def _ours(cls: type) -> bool:
    return cls.__module__.split(".")[0] in PACKAGES and not getattr(cls, "_is_protocol", False)


def _classes() -> list[type]:
    found: list[type] = []
    for package in PACKAGES:
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, f"{package}."):
            if info.name.endswith("__main__"):
                continue
            module = importlib.import_module(info.name)
            for cls in vars(module).values():
                if inspect.isclass(cls) and cls.__module__ == module.__name__:
                    found.append(cls)
    return found


def test_no_chain_of_the_projects_classes_is_deeper_than_two() -> None:
    towers = {
        f"{cls.__module__}.{cls.__qualname__}": [c.__name__ for c in cls.__mro__ if _ours(c)]
        for cls in _classes()
        if not issubclass(cls, (BaseException, BaseModel, enum.Enum))
        and _ours(cls)
        and sum(1 for c in cls.__mro__ if _ours(c)) > 2
    }
    assert towers == {}, towers


def test_a_room_is_its_state_and_its_parts() -> None:
    from server.room import Room
    from server.room.addressing import Addresser
    from server.room.base import RoomBase
    from server.room.dealing import Dealer
    from server.room.results import Results

    assert [c for c in Room.__mro__ if _ours(c)] == [Room, RoomBase]
    for part in (Addresser, Results, Dealer):
        assert [c for c in part.__mro__ if _ours(c)] == [part]


def test_a_director_is_its_state_and_its_rounds() -> None:
    from server.tournaments.base import DirectorBase
    from server.tournaments.director import Director
    from server.tournaments.rounds import Rounds

    assert [c for c in Director.__mro__ if _ours(c)] == [Director, DirectorBase]
    assert [c for c in Rounds.__mro__ if _ours(c)] == [Rounds]


def test_a_cluster_node_is_its_state_and_its_parts() -> None:
    from server.shell.cluster.base import NodeBase
    from server.shell.cluster.forwarding import Forwarding
    from server.shell.cluster.node import ClusterNode
    from server.shell.cluster.tables import Tables
    from server.shell.cluster.watching import Watching

    assert [c for c in ClusterNode.__mro__ if _ours(c)] == [ClusterNode, NodeBase]
    for part in (Forwarding, Watching, Tables):
        assert [c for c in part.__mro__ if _ours(c)] == [part]
