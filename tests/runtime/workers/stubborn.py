"""A worker that says hello, answers pings, and ignores ``Shutdown``.

Written against the raw frame format on purpose: it is the peer that does not
cooperate, so only SIGTERM (whose default action it keeps) ends it.
"""

import os
import socket
import struct

import orjson


def send(sock: socket.socket, obj: dict) -> None:
    data = orjson.dumps(obj)
    sock.sendall(struct.pack(">I", len(data)) + data)


def main() -> None:
    sock = socket.socket(fileno=int(os.environ["HARNESS_IPC_FD"]))
    send(sock, {"k": "h", "pid": os.getpid()})
    buf = b""
    while True:
        data = sock.recv(65536)
        if not data:
            return
        buf += data
        while len(buf) >= 4:
            (size,) = struct.unpack(">I", buf[:4])
            if len(buf) < 4 + size:
                break
            frame, buf = orjson.loads(buf[4 : 4 + size]), buf[4 + size :]
            if frame.get("k") == "p":
                send(sock, {"k": "P", "i": frame["i"], "rss": 0})


main()
