#!/usr/bin/env python3
"""berth-pty: a login shell on a new pseudo-terminal, for berth-agent's terminals.

Node has no PTY API and the image cannot build native addons, so the agent spawns this helper:

    python3 berth-pty.py <cols> <rows> <cwd>

stdout carries the terminal's output bytes as the shell writes them (no framing). stdin carries frames
from the agent, each `type (1 byte) + length (4 bytes, big-endian) + payload`:
    i  bytes typed into the terminal (Ctrl+C is 0x03: the line discipline turns it into SIGINT)
    w  window size: rows, cols as two big-endian uint16 (TIOCSWINSZ; the kernel sends SIGWINCH)
    h  hang up: SIGHUP to the shell's process group, KILL after a grace
End of stdin is a hang-up too. The helper exits with the shell's status (128 + N for signal N).
Backpressure: while the agent does not read stdout, the helper stops reading the PTY, so the program
blocks on its next write, as it would on a real terminal whose scrolling is paused.
"""
import errno
import fcntl
import os
import pwd
import select
import signal
import struct
import sys
import termios
import time

OUT_HIGH_WATER = 256 * 1024
IN_LIMIT = 1024 * 1024
HANGUP_GRACE_S = 5.0
# After the shell exits, programs it left in the background may hold the PTY open: read what is
# already written, then hang them up.
DRAIN_AFTER_EXIT_S = 0.2


def set_winsize(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def nonblocking(fd):
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)


def exit_code(status):
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def spawn_shell(cols, rows, cwd):
    entry = pwd.getpwuid(os.getuid())
    shell = entry.pw_shell or "/bin/bash"
    master, slave = os.openpty()
    # The size is set before the shell starts, so its first prompt already fits.
    set_winsize(slave, rows, cols)
    # Closed by the child's exec (Python's fds are close-on-exec): until then the shell has no process group of its
    # own, and a hang-up sent to the group would find none, so the parent waits for it.
    started_r, started_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(started_r)
            os.close(master)
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            for fd in (0, 1, 2):
                os.dup2(slave, fd)
            if slave > 2:
                os.close(slave)
            # Python ignores SIGPIPE and SIGXFSZ, and exec keeps ignored signals: give the shell defaults.
            for sig in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT, signal.SIGQUIT, signal.SIGTSTP, signal.SIGHUP):
                signal.signal(sig, signal.SIG_DFL)
            os.chdir(cwd)
            env = dict(os.environ)
            env.setdefault("USER", entry.pw_name)
            env.setdefault("LOGNAME", entry.pw_name)
            env["SHELL"] = shell
            # A leading "-" in argv[0] makes it a login shell (bash -l reads /etc/profile, ~/.profile).
            os.execve(shell, ["-" + os.path.basename(shell)], env)
        except BaseException as error:  # noqa: BLE001 - anything here must end the child
            os.write(2, ("berth-pty: cannot start %s: %s\r\n" % (shell, error)).encode())
        finally:
            os._exit(127)
    os.close(slave)
    os.close(started_w)
    while os.read(started_r, 512):
        pass
    os.close(started_r)
    return pid, master


def main():
    cols, rows, cwd = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    wake_r, wake_w = os.pipe()
    nonblocking(wake_r)
    nonblocking(wake_w)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)

    pid, master = spawn_shell(cols, rows, cwd)
    nonblocking(master)
    nonblocking(0)
    nonblocking(1)

    out = bytearray()  # read from the PTY, not yet written to stdout
    to_pty = bytearray()  # typed, not yet accepted by the PTY
    frames = bytearray()  # stdin bytes not yet a whole frame
    master_open = True
    stdin_open = True
    status = None
    exited_at = None
    hangup_at = None

    def hang_up():
        nonlocal hangup_at
        if hangup_at is not None:
            return
        hangup_at = time.monotonic()
        try:
            os.killpg(pid, signal.SIGHUP)
            os.killpg(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass

    while True:
        if status is None:
            try:
                done, raw = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done, raw = pid, 0
            if done == pid:
                status = exit_code(raw)
                exited_at = time.monotonic()
        now = time.monotonic()
        if status is not None and master_open and now - exited_at > DRAIN_AFTER_EXIT_S:
            os.close(master)
            master_open = False
        if status is None and hangup_at is not None and now - hangup_at > HANGUP_GRACE_S:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if status is not None and not master_open and not out:
            break

        readers = [wake_r]
        writers = []
        if master_open and len(out) < OUT_HIGH_WATER:
            readers.append(master)
        if stdin_open:
            readers.append(0)
        if out:
            writers.append(1)
        if to_pty and master_open:
            writers.append(master)
        timeout = None
        if status is not None and master_open:
            timeout = DRAIN_AFTER_EXIT_S
        elif status is None and hangup_at is not None:
            timeout = 0.1
        readable, writable, _ = select.select(readers, writers, [], timeout)

        if wake_r in readable:
            try:
                while os.read(wake_r, 512):
                    pass
            except BlockingIOError:
                pass
        if master in readable and master_open:
            try:
                chunk = os.read(master, 65536)
            except BlockingIOError:
                chunk = None
            except OSError as error:
                if error.errno != errno.EIO:
                    raise
                chunk = b""  # every slave fd is closed
            if chunk == b"":
                os.close(master)
                master_open = False
            elif chunk:
                out += chunk
        if 1 in writable and out:
            try:
                written = os.write(1, out)
                del out[:written]
            except BlockingIOError:
                pass
            except BrokenPipeError:
                # The agent is gone: nobody will read this terminal again.
                out.clear()
                hang_up()
        if 0 in readable and stdin_open:
            try:
                data = os.read(0, 65536)
            except BlockingIOError:
                data = None
            if data == b"":
                stdin_open = False
                hang_up()
            elif data:
                frames += data
                while len(frames) >= 5:
                    kind = frames[0:1]
                    length = struct.unpack(">I", frames[1:5])[0]
                    if len(frames) < 5 + length:
                        break
                    payload = bytes(frames[5 : 5 + length])
                    del frames[: 5 + length]
                    if kind == b"i":
                        if len(to_pty) + len(payload) <= IN_LIMIT:
                            to_pty += payload
                    elif kind == b"w" and master_open and len(payload) == 4:
                        frame_rows, frame_cols = struct.unpack(">HH", payload)
                        set_winsize(master, frame_rows, frame_cols)
                    elif kind == b"h":
                        hang_up()
        if master_open and master in writable and to_pty:
            try:
                written = os.write(master, to_pty)
                del to_pty[:written]
            except BlockingIOError:
                pass
            except OSError:
                to_pty.clear()

    sys.exit(status if status is not None else 1)


if __name__ == "__main__":
    main()
