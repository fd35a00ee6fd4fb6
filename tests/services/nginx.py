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


def config_for(ports: Sequence[int], listen: int, ids: Sequence[str] = ()) -> str:
    """The documented configuration, its nodes' ports (in the order of its first
    upstream, every node's), their ids (``ids``, in the same order; the documented
    ones if not given) and its listening port ours."""
    text = documented_config()
    pool = re.search(r"upstream cribsquares \{(.*?)\}", text, re.S)
    assert pool, "the documented configuration has no upstream of every node"
    documented = re.findall(r"server 127\.0\.0\.1:(\d+)", pool.group(1))
    assert len(documented) == len(ports), (documented, ports)
    ours = dict(zip(documented, map(str, ports), strict=True))
    text = re.sub(r"127\.0\.0\.1:(\d+)", lambda m: f"127.0.0.1:{ours[m.group(1)]}", text)
    named = re.findall(r"^upstream cribsquares_([A-Za-z0-9_-]+) \{", text, re.M)
    assert len(named) == len(ports), (named, ports)
    for old, new in zip(named, ids, strict=False):
        text = re.sub(rf"\bcribsquares_{re.escape(old)}\b", f"cribsquares_{new}", text)
        text = re.sub(rf"^(\s+){re.escape(old)}(\s+cribsquares_)", rf"\g<1>{new}\g<2>", text,
                      flags=re.M)  # fmt: skip
    return re.sub(r"listen \d+;", f"listen 127.0.0.1:{listen};", text, count=1)


@contextlib.contextmanager
def nginx(ports: Sequence[int], ids: Sequence[str] = (), listen: int = 0) -> Iterator[str]:
    """nginx in front of the nodes on ``ports`` (of ids ``ids``, which ``?node=``
    names), on port ``listen`` (default: a free one); its http://127.0.0.1:PORT
    address."""
    assert BINARY is not None, MISSING
    with tempfile.TemporaryDirectory(prefix="cs-nginx-") as tmp:
        started_in(Path(tmp))  # the session's end checks that nothing runs there any more
        listen = listen or free_port()
        conf = Path(tmp) / "nginx.conf"
        temps = "\n".join(
            f"    {kind}_temp_path {tmp}/{kind};"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        conf.write_text(
            f"daemon off;\nmaster_process off;\npid {tmp}/nginx.pid;\n"
            f"error_log {tmp}/error.log warn;\nevents {{ worker_connections 256; }}\n"
            f"http {{\n    access_log off;\n{temps}\n{config_for(ports, listen, ids)}\n}}\n",
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
