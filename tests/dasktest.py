"""What a test that runs Dask needs: Dask itself (skip on a developer's machine without it,
fail under CI, which installs the ``dask`` extra), and connections on this machine.

The autouse ``_no_network`` fixture refuses every connection; a local Dask cluster's client,
scheduler and workers talk over TCP on loopback addresses. :func:`allow_loopback` lets those
through (and only those: any other address still fails the test)."""

from __future__ import annotations

import _socket
import importlib
import importlib.util
import ipaddress
import socket
from typing import Any

import pytest

from tests.conftest import need_oracle


def need_dask() -> None:
    need_oracle(
        importlib.util.find_spec("distributed") is not None,
        'Dask is not installed (pip install -e ".[dask]")',
    )


def distributed() -> Any:
    """``dask.distributed``, as ``Any`` (typed or not, installed or not: mypy sees the same)."""
    need_dask()
    return importlib.import_module("distributed")


def _loopback(host: Any) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


def allow_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    connect = _socket.socket.connect
    connect_ex = _socket.socket.connect_ex

    def checked(address: Any) -> None:
        host = address[0] if isinstance(address, tuple) else None
        if not _loopback(host):
            raise AssertionError(f"a test tried to connect to {address!r}, not a loopback")

    def loopback_connect(self: socket.socket, address: Any) -> None:
        checked(address)
        connect(self, address)

    def loopback_connect_ex(self: socket.socket, address: Any) -> int:
        checked(address)
        result: int = connect_ex(self, address)
        return result

    monkeypatch.setattr(socket.socket, "connect", loopback_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", loopback_connect_ex)
