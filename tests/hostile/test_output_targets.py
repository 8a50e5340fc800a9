"""-o naming something other than a regular file: written through or refused, never replaced."""

from __future__ import annotations

import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from prflow.cli.output_file import check_output_path, write_output
from prflow.errors import UserError


def test_a_fifo_is_written_through(tmp_path: Path) -> None:
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    check_output_path(fifo)
    write_output(fifo, "# report")
    reader.join(10)
    assert received == ["# report\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "still a FIFO"


def test_a_character_device_is_written_through_not_replaced() -> None:
    device = Path("/dev/null")
    check_output_path(device)
    write_output(device, "# report")
    assert stat.S_ISCHR(os.lstat(device).st_mode)


def test_a_link_like_dev_stdout_is_written_through(tmp_path: Path) -> None:
    target = tmp_path / "captured.md"
    target.write_text("")
    link = tmp_path / "stdout"
    link.symlink_to(target)
    write_output(link, "# report")
    assert link.is_symlink(), "the link stays a link"
    assert target.read_text() == "# report\n"


def test_a_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(UserError, match="never replaces a device or a socket"):
            check_output_path(path)
    assert stat.S_ISSOCK(os.lstat(path).st_mode)
