"""The aiohttp shell around the synchronous core: it only parses, calls and sends.

* :mod:`server.shell.app`: ``create_app(config)``, the routes and the store, lobby,
  hub and clocks the application runs;
* :mod:`server.shell.websocket` and :mod:`server.shell.session`: ``/ws`` and one
  connection's frames;
* :mod:`server.shell.http`: the read-only HTTP API;
* :mod:`server.shell.hub`: sign-in, the one path from a command to storage and then
  the wire, the bots' moves, restarts and lost writes;
* :mod:`server.shell.delivery`: addressed messages to the sessions that receive them;
* :mod:`server.shell.daily_keeper`: the daily deal's secrets drawn and stored a week ahead;
* :mod:`server.shell.origins`: which pages may connect, which address a connection is;
* :mod:`server.shell.runtime`: the event loop, the garbage collector, serving;
* :mod:`server.shell.aiohttp_adapters`: aiohttp past its public API, with fallbacks;
* :mod:`server.shell.clock` and :mod:`server.shell.keys`: the clock and the app's keys.
"""
