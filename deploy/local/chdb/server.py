"""The local stack's ClickHouse server from PyPI's chdb-core (docs/design.md A7, A8), run by deploy/local/stack.sh.

Usage: server.py CONFIG_DIR DATA_DIR   (with the Python of the venv that holds chdb-core)

chdb-core embeds ClickHouse's LocalServer. Its low-level entry `chdb._chdb.query(sql, format, path=...)`
runs LocalServer itself, which reads ./config.xml (so we chdir into CONFIG_DIR: listen_host, ports,
users_config) and registers the listener callbacks, so `SYSTEM START LISTEN HTTP|TCP` opens ClickHouse's
own HTTP and native servers. They live as long as that one call runs: its last statement reads a FIFO
that this process holds open, and closing the FIFO (on SIGTERM or SIGINT, or when this process dies,
even by SIGKILL) ends the call, and the server with it.

Two processes: this supervisor (the pid in stack.sh's pid file; it never imports chdb) and the server
child (`serve`). Python runs signal handlers only between bytecodes of the main thread, which the server
child spends inside one C call, so the child cannot react to a signal itself.
"""
import os
import signal
import subprocess
import sys

STOP_GRACE_S = 20


def serve(config_dir: str, data_dir: str, fifo: str) -> int:
    # chdb's package __init__ opens a throwaway embedded session that reads ./config.xml: import it from
    # CONFIG_DIR, so a config.xml wherever the caller stood is never read.
    os.chdir(config_dir)
    import chdb._chdb as chdb  # noqa: E402 (after chdir, see above)

    fifo_sql = fifo.replace("\\", "\\\\").replace("'", "\\'")
    sql = (
        "SYSTEM START LISTEN HTTP; SYSTEM START LISTEN TCP; "
        f"SELECT count() FROM file('{fifo_sql}', 'LineAsString')"
    )
    try:
        chdb.query(sql, "TSV", path=data_dir)
    except Exception as e:  # the server could not start (a bad config): say why
        print(f"clickhouse: {e}", file=sys.stderr, flush=True)
        return 1
    return 0


def supervise(config_dir: str, data_dir: str) -> int:
    fifo = os.path.join(config_dir, "lifetime.fifo")
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo, 0o600)
    # O_RDWR: opening does not wait for the reader, and the child sees end-of-file once this fd is
    # closed (this process is the only writer).
    fd = os.open(fifo, os.O_RDWR)
    # The child inherits no fd of this process (close_fds), so this one is the FIFO's only writer.
    child = subprocess.Popen([sys.executable, os.path.abspath(__file__), "serve", config_dir, data_dir, fifo],
                             stdin=subprocess.DEVNULL)
    state = {"fd": fd}

    def stop(_signum, _frame):
        if state["fd"] is not None:
            os.close(state["fd"])
            state["fd"] = None
            signal.alarm(STOP_GRACE_S)

    def overdue(_signum, _frame):
        print("clickhouse: still running %ds after its FIFO closed; killing it" % STOP_GRACE_S,
              file=sys.stderr, flush=True)
        child.kill()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGALRM, overdue)
    code = child.wait()
    os.unlink(fifo)
    code = code if code >= 0 else 128 - code
    if state["fd"] is not None:
        # Nobody asked it to stop. chdb prints a failed statement (a taken port: code 210) and returns
        # normally, so the child's own code may be 0: a server that ended on its own is a failure.
        os.close(state["fd"])
        print("clickhouse: the server ended without being stopped", file=sys.stderr, flush=True)
        return code or 1
    return code


def main(argv: list) -> int:
    if len(argv) == 5 and argv[1] == "serve":
        return serve(argv[2], argv[3], argv[4])
    if len(argv) == 3:
        return supervise(os.path.abspath(argv[1]), os.path.abspath(argv[2]))
    print("usage: server.py CONFIG_DIR DATA_DIR", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
