"""The search worker as a process under the real conversation: crashes, logs, imports."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import trio

from harness.conversation import SessionOptions, open_session
from tests.scripted import ScriptedModel, call, reply
from tests.search import _web
from tests.search.conftest import doc_urls

SECRET = "Bearer sk-live-9f8e7d6c5b4a"


def _options(
    tmp_path: Path, model: ScriptedModel, env: dict[str, str], allow: tuple[str, ...] = ()
) -> SessionOptions:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return SessionOptions(
        workspace=str(workspace),
        home=str(tmp_path / "home"),
        provider="openai",
        models=("scripted",),
        base_url=model.base_url,
        permission_mode="auto",
        workers={"model": "harness.actors.model", "search": "harness.actors.search"},
        worker_env={"search": env},
        allow=allow,
    )


async def test_kill_9_mid_search_is_an_error_result_and_the_worker_comes_back(
    tmp_path: Path, docs: _web.Site
) -> None:
    first = True

    def results(req: _web.Request) -> Any:
        nonlocal first
        if first:
            first = False
            return _web.Hang()
        return None

    script = [
        reply("", call("search_web", query="str.removeprefix")),
        reply("", call("search_web", query="str.removeprefix")),
        reply("done"),
    ]
    with _web.Site() as ddg, ScriptedModel(script) as model:
        _web.duckduckgo(ddg, lambda q: doc_urls(docs, "stdtypes", "string"))
        serve = ddg.routes[0][1]
        ddg.routes.insert(0, ("/html/", lambda req: results(req) or serve(req)))
        env = {
            "HARNESS_SEARCH_SOURCES": "duckduckgo",
            "HARNESS_SEARCH_DUCKDUCKGO_URL": ddg.url,
            "HARNESS_SEARCH_SOURCE_TIMEOUT": "60",
            "HARNESS_SEARCH_PRIVATE_PAGES": "1",  # the test web is on loopback
        }
        killed: list[int] = []
        async with open_session(_options(tmp_path, model, env)) as session:

            async def kill_when_the_search_is_under_way() -> None:
                await trio.to_thread.run_sync(ddg.arrived.wait, 30)
                handle = session.workers.supervisor.get("search")
                killed.append(handle.pid)
                handle.kill()

            with trio.fail_after(90):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(kill_when_the_search_is_under_way)
                    result = await session.run("look it up")
            tools = [m.content for m in session.history if m.role == "tool"]
            pid_after = session.workers.supervisor.get("search").pid
    assert result.ok, result
    assert killed
    assert "The search worker crashed while running search_web('str.removeprefix')" in tools[0]
    assert "signal 9" in tools[0]
    assert "removeprefix" in tools[1]
    assert f"{docs.url}/docs/library/stdtypes.html" in tools[1]
    assert pid_after != killed[0]


async def test_call_api_headers_never_reach_the_session_log(tmp_path: Path) -> None:
    def echo(req: _web.Request) -> _web.Page:
        seen = {"authorization": req.headers.get("Authorization")}
        return _web.Page(body=json.dumps(seen).encode(), content_type="application/json")

    with _web.Site() as api:
        api.route("/", echo)
        script = [
            reply(
                "",
                call(
                    "call_api",
                    method="GET",
                    url=f"{api.url}/me",
                    headers={"Authorization": SECRET, "Accept": "application/json"},
                ),
            ),
            reply("done"),
        ]
        with ScriptedModel(script) as model:
            # a loopback URL asks even in auto mode, unless a rule names it
            rules = (f"call_api({api.url}/*)",)
            async with open_session(_options(tmp_path, model, {}, rules)) as session:
                # the session answers without waiting for the search worker to start
                started_before = "search" in session.workers.supervisor
                with trio.fail_after(60):
                    result = await session.run("who am I")
                started_after = "search" in session.workers.supervisor
                search = session.workers.supervisor.get("search")
                limit, rss = search.spec.rss_limit, search.status().rss
                tools = [m.content for m in session.history if m.role == "tool"]
                log = session.log.path  # type: ignore[union-attr]
    raw = log.read_text()
    assert result.ok
    assert not started_before
    assert started_after
    # what the network sends cannot grow the worker past its own memory limit
    assert limit == 512 * 1024 * 1024
    assert rss < limit / 3, rss
    assert api.seen[0].headers["Authorization"] == SECRET  # it was sent
    assert SECRET not in tools[0]  # the echo was masked before the model saw it
    assert '"authorization": "[REDACTED]"' in tools[0]
    assert SECRET not in raw
    assert "sk-live" not in raw
    requested = [json.loads(line) for line in raw.splitlines() if '"tool_call_requested"' in line]
    assert requested[0]["arguments"]["headers"] == {
        "Authorization": "[REDACTED]",
        "Accept": "application/json",
    }


def test_the_main_process_never_imports_the_search_code(tmp_path: Path) -> None:
    code = textwrap.dedent(
        """
        import sys, trio
        from pathlib import Path
        from harness.conversation import SessionOptions, open_session
        from tests.scripted import ScriptedModel, call, reply
        from tests.search import _web

        async def main():
            with _web.Site() as site, ScriptedModel(
                [reply("", call("get_url", url=site.url + "/p")), reply("done")]
            ) as model:
                site.route("/p", lambda req: _web.Page(body=b"<main><p>hello page</p></main>"))
                ws = Path(sys.argv[1]) / "ws"
                ws.mkdir()
                opts = SessionOptions(
                    workspace=str(ws), home=sys.argv[1] + "/home", provider="openai",
                    models=("scripted",), base_url=model.base_url, permission_mode="auto",
                    workers={"model": "harness.actors.model", "search": "harness.actors.search"},
                    allow=("get_url(" + site.url + "/*)",),
                )
                async with open_session(opts) as s:
                    await s.run("fetch it")
                    print("hello page" in [m.content for m in s.history if m.role == "tool"][0])
            heavy = ("selectolax", "harness.actors.search", "httpcore")
            print(sorted(m for m in heavy if m in sys.modules))

        trio.run(main)
        """
    )
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=root,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-2:] == ["True", "[]"]
