"""The ``--plain`` front end: commands on stdin, events as sentences on stdout."""
