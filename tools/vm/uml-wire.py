#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The link between two User-Mode Linux instances, and its pcap.

UML's vector network driver can use a file descriptor it inherits as its
wire (`vec0:transport=fd,fd=N`): one Ethernet frame per datagram. This
program plays the wire between two instances without any privilege:

  uml-wire.py serve DIR PCAP
      listens on DIR/wire.sock; the first two instances that attach are
      joined: every frame one sends is written to PCAP (Ethernet link type,
      as qemu's filter-dump records a guest link) and passed to the other.
      Runs until killed.
  uml-wire.py attach DIR FD COMMAND [ARG...]
      gets its end of the wire from the server as descriptor FD, then
      executes COMMAND (the UML kernel) with it.

A frame sent before the other instance attached is dropped, as on a cable
not yet plugged in.
"""

import array
import os
import select
import socket
import struct
import sys
import time

# A frame of up to 64 KiB: the guests' MTU stays at 1500, but a datagram is
# never truncated silently.
FRAME_MAX = 65536


def pcap_header():
    # pcap file header: magic, version 2.4, GMT offset, accuracy, snaplen,
    # link type 1 (Ethernet).
    return struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, FRAME_MAX, 1)


def pcap_record(frame):
    now = time.time()
    sec = int(now)
    usec = int((now - sec) * 1e6)
    return struct.pack("<IIII", sec, usec, len(frame), len(frame)) + frame


def serve(directory, pcap_path):
    path = os.path.join(directory, "wire.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(2)
    pcap = open(pcap_path, "wb", buffering=0)
    pcap.write(pcap_header())
    ends = []  # the server's side of each instance's socketpair
    while True:
        readable, _, _ = select.select([listener] + ends, [], [])
        for sock in readable:
            if sock is listener:
                conn, _ = listener.accept()
                if len(ends) == 2:
                    conn.close()  # a wire joins two instances
                    continue
                mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
                for end in (mine, theirs):
                    end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
                    end.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
                fds = array.array("i", [theirs.fileno()])
                conn.sendmsg([b"w"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
                conn.close()
                theirs.close()
                ends.append(mine)
                continue
            frame = sock.recv(FRAME_MAX)
            peers = [e for e in ends if e is not sock]
            if not frame or not peers:
                continue
            pcap.write(pcap_record(frame))
            try:
                peers[0].send(frame, socket.MSG_DONTWAIT)
            except OSError:
                pass  # the other end is gone or its queue full: a lost frame


def attach(directory, fd, command):
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(os.path.join(directory, "wire.sock"))
    fds = array.array("i")
    _, anc, _, _ = conn.recvmsg(1, socket.CMSG_LEN(fds.itemsize))
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: fds.itemsize])
    conn.close()
    if not fds:
        sys.exit("uml-wire: no wire from the server")
    os.dup2(fds[0], fd)  # dup2 leaves the copy inheritable
    if fds[0] != fd:
        os.close(fds[0])
    os.execvp(command[0], command)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "serve":
        serve(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 5 and sys.argv[1] == "attach":
        attach(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
