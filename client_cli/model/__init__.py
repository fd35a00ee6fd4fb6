"""The client-side model: everything the player sees, folded from server messages.

``views`` holds the value types (clocks, the match, a tournament, a challenge),
``state`` the :class:`~client_cli.model.state.ClientModel` that folds every
server message into them, ``events`` and ``text`` the sentences told to the
player, ``checks`` the deal checks of :mod:`engine.verification` fed from protocol
messages. No module here does I/O or reads the clock.
"""
