"""nginx of the tests' own: the cluster's configuration from docs/operations.md, on a
free loopback port, in a temporary directory, one process, stopped at the end.

Where the binary is missing, :data:`MISSING` says so in one line.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from tests.services import started_in
from tests.services.redis import free_port, stop, wait_until_serving

BINARY = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.path.exists(p)), None)
MISSING = None if BINARY else "nginx is not installed (Debian: apt-get install nginx)"
DOC = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def documented_config() -> str:
    """The ```nginx block of docs/operations.md (the one operators copy)."""
    found = re.search(r"```nginx\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert found, "docs/operations.md has no nginx configuration"
    return found.group(1)


def config_for(ports: Sequence[int], listen: int) -> str:
    """The documented configuration, its upstreams and its listening port ours."""
    text = documented_config()
    documented = re.findall(r"server 127\.0\.0\.1:(\d+)", text)
    assert len(documented) == len(ports), (documented, ports)
    for old, new in zip(documented, ports, strict=True):
        text = text.replace(f"127.0.0.1:{old}", f"127.0.0.1:{new}", 1)
    return re.sub(r"listen \d+;", f"listen 127.0.0.1:{listen};", text, count=1)


@contextlib.contextmanager
def nginx(ports: Sequence[int]) -> Iterator[str]:
    """nginx in front of the nodes on ``ports``; its http://127.0.0.1:PORT address."""
    assert BINARY is not None, MISSING
    with tempfile.TemporaryDirectory(prefix="cs-nginx-") as tmp:
        started_in(Path(tmp))  # the session's end checks that nothing runs there any more
        listen = free_port()
        conf = Path(tmp) / "nginx.conf"
        temps = "\n".join(
            f"    {kind}_temp_path {tmp}/{kind};"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        conf.write_text(
            f"daemon off;\nmaster_process off;\npid {tmp}/nginx.pid;\n"
            f"error_log {tmp}/error.log warn;\nevents {{ worker_connections 256; }}\n"
            f"http {{\n    access_log off;\n{temps}\n{config_for(ports, listen)}\n}}\n",
            encoding="utf-8",
        )
        process = subprocess.Popen(
            [BINARY, "-p", tmp, "-c", str(conf), "-e", f"{tmp}/error.log"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            wait_until_serving(process, listen, "nginx")
            yield f"http://127.0.0.1:{listen}"
        finally:
            stop(process)
