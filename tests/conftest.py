"""Fixtures every test folder shares, and how the suite runs on several cores.

Every test gets a HARNESS_HOME of its own (:func:`harness_home`), so no test reads or
writes the user's ``~/.harness`` and tests running side by side never share one.

``make test`` runs the suite with pytest-xdist, ``-n 2 --dist loadfile``: each test file
goes whole to whichever worker process is free (a module-scoped fixture is set up once),
and the folders in :data:`ONE_UNIT` go whole too, one test after the other, because their
tests must not run beside each other or would pay twice for what they share; they go
first, then the long files of :data:`SLOW_UNITS` (:func:`pytest_xdist_make_scheduler`).
xdist's own ``--dist loadgroup`` would say this with marks, but it renames test ids in a
way pytest 9 ignores.
"""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, settings

from harness.supervisor import SharedForkServer, Supervisor, open_supervisor
from tests.scripted import ScriptedModel

# The suite shares two cores with itself: hypothesis's clocks (a 200 ms deadline an
# example, a health check on how fast examples are made) would measure the machine's
# load, not the code, and fail a test that is right (seen at load 10).
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")

# Tests press Ctrl+C on the processes they start (``os.killpg(..., SIGINT)``) and expect
# what a terminal's user sees. Where the suite itself runs with SIGINT ignored (a
# background job of a shell without job control, ``nohup``), every child would inherit the
# ignoring and never hear it; Python's own handler here makes the children start with the
# default again (exec resets a handled signal, but keeps an ignored one).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

if TYPE_CHECKING:
    from tests.tui._term import Term

#: test folders that run on one worker, whole, and why; they are handed out first, in
#: this order (the longest units of the run: the embedded model's alone is a third of it)
ONE_UNIT = {
    # the embedded model: 1.1 GB loaded once per worker, and generation that wants both
    # cores; one worker runs these while the other runs the rest
    "tests/local/": "embedded model",
    # the batch tests find their sessions among all the machine's processes by workspace
    # names every batch test uses (``.../t2/ws``), and some start Ray instances
    "tests/batch/": "batch",
}


#: files of few tests that take long (each 5 s or more in ``--durations``), handed out right
#: after :data:`ONE_UNIT`, longest first: xdist hands out the files with the most tests
#: first, so these came last, and one worker ran the last of them while the other had
#: ended (a name that no longer matches a file changes only the order)
SLOW_UNITS = (
    "tests/tui/test_first_minutes.py",
    "tests/acp/test_node_client.py",
    "tests/tui/test_promised_commands.py",
    "tests/mcp_bridge/test_everything.py",
    "tests/tui/test_trust_prompt.py",
    "tests/acp/test_settings.py",
    "tests/tui/test_hooks_command.py",
    "tests/tui/test_ask.py",
    "tests/rewind/test_terminal.py",
    "tests/rewind/test_program.py",
    "tests/acp/test_rpc.py",
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "own_fork_server: the test's sessions start fork servers of their own"
    )


@pytest.hookimpl(tryfirst=True)  # before xdist makes its own
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile``, with each folder of :data:`ONE_UNIT` as one file."""
    if config.getvalue("dist") != "loadfile":
        return None  # xdist's own choice
    from xdist.scheduler import LoadFileScheduling

    class FolderScheduling(LoadFileScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            for folder in ONE_UNIT:
                if nodeid.startswith(folder):
                    return folder
            return str(super()._split_scope(nodeid))

        def _assign_work_unit(self, node: Any) -> None:
            # xdist hands out the units with the most tests first, not the longest
            for unit in reversed((*ONE_UNIT, *SLOW_UNITS)):
                if unit in self.workqueue:
                    self.workqueue.move_to_end(unit, last=False)
            super()._assign_work_unit(node)

    return FolderScheduling(config, log)


@pytest.fixture(autouse=True, scope="session")
def _sessions_without_warm() -> Iterator[None]:
    """``HARNESS_FORK_WARM=0`` for the sessions tests open in this process: each starts its
    workers at once, so the fork server's warm only imports their modules a second time
    beside them, a quarter second of CPU per session, hundreds of times (the warm itself
    is tested in tests/runtime with ``open_supervisor(warm=...)``)."""
    from harness.conversation.workers import FORK_WARM_ENV

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(FORK_WARM_ENV, "0")
        yield


#: test folders whose sessions are not offered the shared server: the runtime's tests kill
#: and inspect a supervisor's own server, the MCP tests offer one of their own with the
#: SDK imported (tests/mcp_bridge/conftest.py), the batch tests fork sessions from servers
#: of their own
OWN_FORK_SERVER = ("tests/runtime/", "tests/batch/", "tests/mcp_bridge/")


@pytest.fixture(scope="session")
def shared_fork_server() -> Iterator[SharedForkServer]:
    """One fork server for this test process's sessions (offered by :func:`_fork_server`),
    with the default workers' modules imported once it is ready: each session connects to
    it instead of starting a server of its own (0.2 s of CPU each, hundreds of times)."""
    import os

    from harness._forkstart import RUNNER_PRELOAD, WORKER_PRELOAD

    server = SharedForkServer(warm=(*WORKER_PRELOAD, *RUNNER_PRELOAD), environ=dict(os.environ))
    yield server
    server.close()


@pytest.fixture(autouse=True)
def _fork_server(request: pytest.FixtureRequest) -> Iterator[None]:
    """The shared fork server offered to the test's supervisors, but in
    :data:`OWN_FORK_SERVER` and for tests marked ``own_fork_server``."""
    if request.node.nodeid.startswith(OWN_FORK_SERVER) or request.node.get_closest_marker(
        "own_fork_server"
    ):
        yield
        return
    server: SharedForkServer = request.getfixturevalue("shared_fork_server")
    with server.offered():
        yield


@pytest.fixture(autouse=True)
def harness_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty ``HARNESS_HOME`` for every test (set in the environment)."""
    home = tmp_path_factory.mktemp("harness-home")
    monkeypatch.setenv("HARNESS_HOME", str(home))
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An empty workspace folder, ``tmp_path / "ws"``."""
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty ``HARNESS_HOME``, ``tmp_path / "home"``, set in the environment."""
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HARNESS_HOME", str(h))
    return h


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    """A fresh workspace and ``HARNESS_HOME`` (not set in the environment): ``(ws, home)``."""
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    return ws, home


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    """The scripted model on loopback, with an empty script (``model.add(...)``)."""
    with ScriptedModel() as m:
        yield m


@pytest.fixture
async def supervisor() -> AsyncIterator[Supervisor]:
    """A real supervisor; its workers are stopped after the test."""
    async with open_supervisor() as sup:
        yield sup


@pytest.fixture
def term_for(dirs: tuple[Path, Path]) -> Iterator[Callable[..., Term]]:
    """``term_for(model, args)``: harness started in a pty against a scripted model (or
    none), at its first prompt, in the workspace and home of :func:`dirs`; every terminal
    started is closed after the test."""
    from tests.tui._term import spawn  # pexpect, only for the tests that drive a terminal

    terms: list[Term] = []

    def make(model: ScriptedModel | None, args: list[str] | None = None) -> Term:
        ws, home = dirs
        t = spawn(ws, home, base_url=model.base_url if model else None, args=args)
        terms.append(t)
        t.expect("❯")
        return t

    yield make
    for t in terms:
        t.close()
