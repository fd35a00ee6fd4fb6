"""Many nodes as one server: Redis shares what nodes must know, the store what must last.

Started by ``cribsquares serve --redis URL`` (without it none of this runs). The
room machine, the lobby and visibility are unchanged: the cluster is a transport
around them (docs/scaling.md).

* :mod:`.bus`: the node's Redis connections, its channel and the broadcast one.
* :mod:`.leases`: who owns a room (a lease with a fencing token), node liveness.
* :mod:`.presence`: which node(s) each player is connected to.
* :mod:`.delivery`: addressed messages to local sessions and to other nodes.
* :mod:`.directory`: the public list of rooms and the invite codes, cluster-wide.
* :mod:`.waiting`: quick play's queue and the open challenges, copied for the next coordinator.
* :mod:`.tables`: a tournament's tables, placed where their players are, asked and heard.
* :mod:`.hints`: which connections are told that a room of theirs runs on another node.
* :mod:`.node`: the node itself, built in layers: :mod:`.base` (its state, who is
  connected where), :mod:`.forwarding` (commands sent to their owners, run there),
  :mod:`.watching` (nodes gone, leases lost, Redis emptied: takeover and recovery,
  the coordinator), and :mod:`.node` on top (starting and stopping, the hub's
  calls, the bus).
"""
