"""The baseline's peer: a bare trio loop echoing length-prefixed frames, no typing."""

from __future__ import annotations

import os
import socket
import struct

import trio


async def main(fd: int) -> None:
    sock = socket.socket(fileno=fd)
    sock.setblocking(False)
    stream = trio.SocketStream(trio.socket.from_stdlib_socket(sock))
    buf = bytearray()
    while True:
        data = await stream.receive_some(65536)
        if not data:
            return
        buf += data
        while len(buf) >= 4:
            (size,) = struct.unpack_from(">I", buf)
            if len(buf) < 4 + size:
                break
            frame = bytes(buf[: 4 + size])
            del buf[: 4 + size]
            await stream.send_all(frame)


if __name__ == "__main__":
    trio.run(main, int(os.environ["BARE_FD"]))
