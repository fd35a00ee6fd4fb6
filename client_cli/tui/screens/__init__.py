"""The screens of the full-screen client, one job each.

Every screen renders the client-side model (``self.crib.model``) in ``show``,
which the app calls after every change, and hands actions to the app through
:class:`~client_cli.tui.crib.Crib`; no screen talks to the network itself, and
none imports the app.
"""
