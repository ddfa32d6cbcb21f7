#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The link between two User-Mode Linux instances, and its pcap.

UML's vector network driver can use a file descriptor it inherits as its
wire (`vec0:transport=fd,fd=N`): one Ethernet frame per datagram. This
program plays the wire between two instances without any privilege:

  uml-wire.py serve [OPTION...] DIR PCAP
      listens on DIR/wire.sock; the first two instances that attach are
      joined: every frame one sends is passed to the other and written to
      PCAP (Ethernet link type, as qemu's filter-dump records a guest link)
      when it is delivered. Runs until killed (SIGTERM: it prints what it
      did to the link on stderr and exits).
  uml-wire.py attach DIR FD COMMAND [ARG...]
      gets its end of the wire from the server as descriptor FD, then
      executes COMMAND (the UML kernel) with it.
  uml-wire.py stub FD COMMAND [ARG...]
      a wire to nowhere: executes COMMAND with one end of a socket pair as
      descriptor FD; a child process reads and drops what arrives at the
      other end until COMMAND exits. One instance gets an Ethernet
      interface that reaches no one (run.sh --nic).

OPTIONs impair the link in both directions as `tc qdisc ... netem` does on
a sender's queue, each decision drawn from one random generator seeded with
--seed, so that the same sequence of frames meets the same faults:
  --loss PCT       drop a frame
  --duplicate PCT  deliver a frame twice
  --delay MS       hold every frame MS milliseconds
  --reorder PCT    (with --delay) send a frame at once, ahead of the held
                   ones
  --fin-loss PCT   drop a TCP segment with FIN set (IPv4 or IPv6), on top
                   of --loss: a connection's close then rests on TCP's
                   retransmission of the FIN
  --seed N         the generator's seed (default 1)
  --snaplen N      record at most N bytes of each frame (default 65536;
                   128 keeps the TCP headers of a long run, not its data)
  --drops FILE     record the frames it drops there too, as a pcap
  --down FILE      while FILE exists the link is cut: every frame, either
                   way, is dropped (counted as cut; in neither pcap), as
                   when a cable is pulled. A test cuts a path by creating
                   the file and mends it by removing it (run.sh: the
                   guests' /results/linkN-down)
The pcap has what was delivered: no lost frame, a duplicate twice, each at
its delivery time and in delivery order. On SIGTERM the last line on stderr
is `uml-wire: N frames, N lost, N duplicated, N reordered, N delayed,
N FINs, N FINs lost, N overflowed, N cut` (lost counts the lost FINs too;
overflowed, the frames the receiving instance had no room for, which a
wire without faults loses as well; cut, those dropped while --down's file
existed, which the other counts leave out).

A frame sent before the other instance attached is dropped, as on a cable
not yet plugged in.
"""

import argparse
import array
import heapq
import os
import random
import select
import signal
import socket
import struct
import sys
import time

# A frame of up to 64 KiB: the guests' MTU stays at 1500, but a datagram is
# never truncated silently.
FRAME_MAX = 65536


def pcap_header(snaplen):
    # pcap file header: magic, version 2.4, GMT offset, accuracy, snaplen,
    # link type 1 (Ethernet).
    return struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snaplen, 1)


def pcap_record(frame, snaplen):
    now = time.time()
    sec = int(now)
    usec = int((now - sec) * 1e6)
    kept = frame[:snaplen]
    return struct.pack("<IIII", sec, usec, len(kept), len(frame)) + kept


def tcp_fin(frame):
    """Whether an Ethernet frame carries a TCP segment with FIN set."""
    if len(frame) < 14:
        return False
    kind = struct.unpack_from("!H", frame, 12)[0]
    if kind == 0x0800 and len(frame) >= 34 and frame[23] == 6:  # IPv4, TCP
        tcp = 14 + (frame[14] & 0x0F) * 4
    elif kind == 0x86DD and len(frame) >= 54 and frame[20] == 6:  # IPv6, TCP
        tcp = 54
    else:
        return False
    return len(frame) > tcp + 13 and bool(frame[tcp + 13] & 0x01)


class Cut:
    """--down: whether the link is cut now, the file looked at every 50 ms."""

    def __init__(self, path):
        self.path = path
        self.checked = 0.0
        self.down = False

    def now(self, now):
        if self.path and now - self.checked >= 0.05:
            self.checked = now
            self.down = os.path.exists(self.path)
        return self.down


class Impairment:
    """netem's loss, duplicate, delay and reorder, and lost FINs."""

    def __init__(self, args, drops):
        self.drops = drops  # a pcap of the lost frames, or None
        self.loss = args.loss / 100.0
        self.fin_loss = args.fin_loss / 100.0
        self.duplicate = args.duplicate / 100.0
        self.reorder = args.reorder / 100.0
        self.delay = args.delay / 1000.0
        self.snaplen = args.snaplen
        self.rng = random.Random(args.seed)
        self.held = []  # heap of (due, sequence, frame, destination)
        self.seq = 0
        self.count = {"frames": 0, "lost": 0, "duplicated": 0, "reordered": 0, "delayed": 0,
                      "FINs": 0, "FINs lost": 0, "overflowed": 0, "cut": 0}

    def active(self):
        return self.loss or self.fin_loss or self.duplicate or self.delay or self.reorder

    def schedule(self, frame, dest, now):
        """Queues the deliveries of one frame sent now, if any."""
        self.count["frames"] += 1
        # Draw every decision for every frame: a frame's fate then depends
        # only on its place in the sequence.
        lost = self.rng.random() < self.loss
        if self.fin_loss and tcp_fin(frame):
            self.count["FINs"] += 1
            if self.rng.random() < self.fin_loss:
                lost = True
                self.count["FINs lost"] += 1
        dup = self.rng.random() < self.duplicate
        ahead = [self.rng.random() < self.reorder for _ in range(2)]
        if lost:
            self.count["lost"] += 1
            if self.drops:
                self.drops.write(pcap_record(frame, self.snaplen))
            return
        if dup:
            self.count["duplicated"] += 1
        copies = []
        for at_once in ahead[: 2 if dup else 1]:
            if not self.delay:
                copies.append(now)
            elif at_once:
                self.count["reordered"] += 1
                copies.append(now)
            else:
                self.count["delayed"] += 1
                copies.append(now + self.delay)
        for due in copies:
            self.seq += 1
            heapq.heappush(self.held, (due, self.seq, frame, dest))

    def due(self, now):
        """Frames whose time has come, in delivery order."""
        while self.held and self.held[0][0] <= now:
            _, _, frame, dest = heapq.heappop(self.held)
            yield frame, dest

    def timeout(self, now):
        return max(0.0, self.held[0][0] - now) if self.held else None

    def summary(self):
        return "uml-wire: " + ", ".join(
            f"{v} {k}" for k, v in self.count.items())


def serve(args):
    path = os.path.join(args.directory, "wire.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(2)
    pcap = open(args.pcap, "wb", buffering=0)
    pcap.write(pcap_header(args.snaplen))
    drops = None
    if args.drops:
        drops = open(args.drops, "wb", buffering=0)
        drops.write(pcap_header(args.snaplen))
    imp = Impairment(args, drops)
    cut = Cut(args.down)

    def stop(_sig, _frame):
        print(imp.summary(), file=sys.stderr, flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)

    def deliver(frame, dest):
        try:
            dest.send(frame, socket.MSG_DONTWAIT)
        except OSError:
            # The other end is gone or its queue full: a lost frame.
            imp.count["overflowed"] += 1
            if drops:
                drops.write(pcap_record(frame, args.snaplen))
            return
        pcap.write(pcap_record(frame, args.snaplen))

    ends = []  # the server's side of each instance's socketpair
    while True:
        readable, _, _ = select.select([listener] + ends, [], [],
                                       imp.timeout(time.monotonic()))
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
            if cut.now(time.monotonic()):
                imp.count["cut"] += 1
                continue
            if imp.active():
                imp.schedule(frame, peers[0], time.monotonic())
            else:
                deliver(frame, peers[0])
        for frame, dest in imp.due(time.monotonic()):
            deliver(frame, dest)


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


def stub(fd, command):
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    parent = os.getpid()
    if os.fork() == 0:
        # The drain: the instance (this process once it executes COMMAND)
        # is its parent; when it exits the child is reparented and ends.
        theirs.close()
        ours.settimeout(1.0)
        while os.getppid() == parent:
            try:
                ours.recv(FRAME_MAX)
            except (socket.timeout, InterruptedError):
                pass
        os._exit(0)
    ours.close()
    os.dup2(theirs.fileno(), fd)  # dup2 leaves the copy inheritable
    if theirs.fileno() != fd:
        theirs.close()
    os.execvp(command[0], command)


def percent(text):
    value = float(text)
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text}: not a percentage")
    return value


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "attach":
        attach(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
        return
    if len(sys.argv) >= 4 and sys.argv[1] == "stub":
        stub(int(sys.argv[2]), sys.argv[3:])
        return
    if len(sys.argv) < 2 or sys.argv[1] != "serve":
        sys.exit(__doc__)
    parser = argparse.ArgumentParser(prog="uml-wire.py serve")
    parser.add_argument("--loss", type=percent, default=0.0)
    parser.add_argument("--fin-loss", type=percent, default=0.0)
    parser.add_argument("--duplicate", type=percent, default=0.0)
    parser.add_argument("--reorder", type=percent, default=0.0)
    parser.add_argument("--delay", type=float, default=0.0, help="milliseconds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--snaplen", type=int, default=FRAME_MAX)
    parser.add_argument("--drops", metavar="FILE")
    parser.add_argument("--down", metavar="FILE")
    parser.add_argument("directory")
    parser.add_argument("pcap")
    args = parser.parse_args(sys.argv[2:])
    if args.delay < 0:
        parser.error("--delay must not be negative")
    if not 14 <= args.snaplen <= FRAME_MAX:
        parser.error(f"--snaplen must be 14 to {FRAME_MAX}")
    serve(args)


if __name__ == "__main__":
    main()
